//! The page's structure kept and written: the install guide of the structure issue
//! (`fixtures/pages/install-guide.html`: a table with its header, a code block, inline code, a
//! heading and a MathML formula) in Markdown and as text, and structure that is hostile input.

use crate::common::{fixture, ppl_filter, stdout};

fn clean(flags: &[&str], page: &str) -> String {
    let page = fixture(page);
    let mut args = flags.to_vec();
    args.push(page.to_str().unwrap());
    let out = ppl_filter(&args, b"");
    assert_eq!(out.status.code(), Some(0));
    stdout(&out)
}

#[test]
fn markdown_keeps_the_table_the_code_the_heading_and_the_formula() {
    let text = clean(&["-f", "markdown"], "pages/install-guide.html");
    for part in [
        "# Installing the tool\n",
        "| Platform | Version | Status |\n| --- | --- | --- |\n",
        "| Windows | 3.10 to 3.13 | experimental |\n",
        "```sh\npip install mytool\nmytool --version\n```\n",
        "\n## Options\n",
        "- The `--fast` flag",
        "the formula $E=mc^2$ in the usual units",
    ] {
        assert!(text.contains(part), "{part:?} in\n{text}");
    }
    assert_eq!(text.matches("```").count(), 2, "one fenced block: {text}");
    assert!(
        !text.contains("Home") && !text.contains("Copyright"),
        "{text}"
    );
}

#[test]
fn text_writes_a_table_row_a_line_and_the_code_s_lines() {
    let text = clean(&[], "pages/install-guide.html");
    assert!(
        text.contains("\nWindows\t3.10 to 3.13\texperimental\n"),
        "{text}"
    );
    assert!(
        text.contains("\npip install mytool\nmytool --version\n"),
        "{text}"
    );
    assert!(text.contains("formula E=mc^2 in"), "{text}");
}

#[test]
fn html_writes_the_table_the_code_and_the_formula_as_minimal_html() {
    let html = clean(&["-f", "html"], "pages/install-guide.html");
    for part in [
        "<h1>Installing the tool</h1>\n",
        "<thead><tr><th>Platform</th><th>Version</th><th>Status</th></tr></thead>",
        "<tr><td>Windows</td><td>3.10 to 3.13</td><td>experimental</td></tr>",
        "<pre><code class=\"language-sh\">pip install mytool\nmytool --version</code></pre>",
        "<h2>Options</h2>",
        "<ul><li>The <code>--fast</code> flag",
        "<span class=\"math inline\">\\(E=mc^2\\)</span>",
    ] {
        assert!(html.contains(part), "{part:?} in\n{html}");
    }
    assert!(html.trim_end().ends_with("</p>"), "lists closed: {html}");
}

#[test]
fn hostile_structure_is_clear_output_in_bounded_time() {
    let prose = "<p>The town council voted on Tuesday to approve a plan that will restore the \
                 banks of the river, after two years of public meetings.</p>";
    let deep_tables = "<table><tr><td>".repeat(1000) + "cell" + &"</td></tr></table>".repeat(1000);
    let wide = "<table><tr><td colspan=1000000>a</td><td>b</td></tr><tr><td>c</td></tr></table>";
    let deep_math = "<math>".to_string() + &"<mrow>".repeat(100_000) + "<mi>x</mi>" + "</math>";
    let bad_tex = "<math><annotation encoding='application/x-tex'>\\frac{</annotation></math>";
    let long_pre = format!("<pre>{}</pre>", "let x = 1;\n".repeat(200_000));
    for hostile in [
        deep_tables,
        wide.to_string(),
        deep_math,
        bad_tex.to_string(),
        long_pre,
    ] {
        let page = format!("<html><body>{prose}{hostile}{prose}</body></html>");
        for format in ["markdown", "text"] {
            let out = ppl_filter(&["-q", "-f", format], page.as_bytes());
            assert!(matches!(out.status.code(), Some(0 | 1)), "{format}");
            let text = stdout(&out);
            assert!(
                text.matches("The town council").count() == 2,
                "{format}: {}",
                &text[..text.len().min(300)]
            );
        }
    }
}
