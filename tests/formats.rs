//! The output formats: one JSON object per document for every input kind, Markdown from the
//! block kinds, `--title` with the default method, and `--output-field` for JSONL.

use crate::common::{fixture, ppl_filter, stderr, stdout};

fn parse_lines(out: &std::process::Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect()
}

/// The JSON record `--format json` writes for `page`, given on standard input (exit 0).
fn json_record(page: &str) -> serde_json::Value {
    let out = ppl_filter(&["--format", "json"], page.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    parse_lines(&out).swap_remove(0)
}

const PAGE: &str = "<html><head><title>Budget &amp; school</title>\
<link rel=\"canonical\" href=\"https://news.example/budget\"></head><body>\
<nav><a href=/>Home</a> <a href=/about>About</a></nav><article><h1>The new budget</h1>\
<p>The committee approved the new budget for the school year after a long debate on Tuesday evening.</p>\
<ul><li>More teachers for the primary schools in the north of the county.</li>\
<li>A new roof for the library, which has been closed since the storm in March.</li></ul>\
<p>The plan now goes to the council, which will vote on it next month.</p></article></body></html>";

#[test]
fn json_has_one_object_per_document_with_its_metadata() {
    let page = fixture("pages/news.html");
    let out = ppl_filter(
        &["--format", "json", page.to_str().unwrap(), "-"],
        PAGE.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let objects = parse_lines(&out);
    assert_eq!(objects.len(), 2);
    assert_eq!(objects[0]["source"], page.to_str().unwrap());
    assert_eq!(
        objects[0]["title"],
        "River project approved | The Valley Courier"
    );
    assert_eq!(objects[0]["lang"], "eng");
    let plain = stdout(&ppl_filter(&[page.to_str().unwrap()], b""));
    assert_eq!(
        objects[0]["text"].as_str().unwrap(),
        plain.trim_end(),
        "the same text as plain"
    );
    assert_eq!(objects[1]["source"], "<stdin>");
    assert_eq!(
        objects[1]["url"], "https://news.example/budget",
        "the canonical link"
    );
    assert_eq!(objects[1]["title"], "Budget & school");
    let kept = objects[1]["sentences_kept"].as_u64().unwrap();
    assert!(kept >= 4 && objects[1]["sentences_dropped"].as_u64().is_some());
    // --url is the page's URL ahead of its canonical link.
    let given = ppl_filter(
        &["--format", "json", "--url", "https://given.example/"],
        PAGE.as_bytes(),
    );
    assert_eq!(parse_lines(&given)[0]["url"], "https://given.example/");
    // The same objects for any thread count.
    let args = ["--format", "json", "-j1", page.to_str().unwrap(), "-"];
    let one = ppl_filter(&args, PAGE.as_bytes());
    let four = ppl_filter(
        &[&args[..2], &["-j4"], &args[3..]].concat(),
        PAGE.as_bytes(),
    );
    assert_eq!(one.stdout, four.stdout);
}

/// A page that says who wrote it, when, on which site, and what it is about: in meta tags
/// and in JSON-LD (which only fills what the tags leave empty, but adds its authors).
const PAGE_WITH_METADATA: &str = r#"<html><head><title>Storm reaches the coast</title>
<meta name="author" content="Jane Reporter">
<meta property="article:published_time" content="2026-10-02T08:00:00Z">
<meta name="description" content="A storm reached the coast on Friday.">
<script type="application/ld+json">{"@type":"NewsArticle","author":{"name":"Someone Else"},
"publisher":{"@type":"Organization","name":"Coastal Times"}}</script></head>
<body><article><p>The storm reached the coast on Friday morning and cut the power to thousands
of homes, officials said on Saturday.</p></article></body></html>"#;

#[test]
fn json_names_the_authors_of_the_byline_when_the_tags_name_no_one() {
    let page = PAGE.replace(
        "<h1>The new budget</h1>",
        "<h1>The new budget</h1><p class=\"byline\">By <a rel=\"author\" href=/ann>Ann Lee</a> \
         and Bo Chen | 3 May 2024</p>",
    );
    assert_eq!(json_record(&page)["author"], "Ann Lee; Bo Chen");
    let tagged = page.replace("<head>", "<head><meta name=\"author\" content=\"Cy Dunn\">");
    assert_eq!(json_record(&tagged)["author"], "Cy Dunn");
}

#[test]
fn json_reports_the_author_date_site_and_description_a_page_gives() {
    let object = &json_record(PAGE_WITH_METADATA);
    assert_eq!(object["author"], "Jane Reporter; Someone Else");
    assert_eq!(object["date"], "2026-10-02T08:00:00Z");
    assert_eq!(
        object["sitename"], "Coastal Times",
        "from JSON-LD's publisher"
    );
    assert_eq!(
        object["description"],
        "A storm reached the coast on Friday."
    );
    assert_eq!(object["kind"], "article");
    // A page that gives none of them has them null.
    let bare = &json_record(PAGE);
    for field in ["author", "date", "sitename", "description"] {
        assert!(bare[field].is_null(), "{field}: {}", bare[field]);
    }
}

#[test]
fn json_metadata_is_decoded_and_normalised() {
    let page = r#"<html><head><title>Tom &amp; Jerry&#039;s day | Coastal Times</title>
<link rel="canonical" href="https://www.coastal.example/news?id=1&amp;p=2">
<meta name="twitter:site" content="@coastal">
<meta property="article:author" content="https://www.facebook.com/coastal">
<meta name="author" content="Fran&ccedil;ois Dupont">
<meta name="date" content="Fri, 02 Oct 2026 08:00:00 GMT">
<meta name="description" content="Cats &amp; mice &lt;3">
</head><body><p>The storm reached the coast on Friday night and the sea wall held.</p></body></html>"#;
    let object = &json_record(page);
    for (field, want) in [
        ("title", "Tom & Jerry's day"),
        ("page_title", "Tom & Jerry's day | Coastal Times"),
        ("url", "https://www.coastal.example/news?id=1&p=2"),
        ("author", "François Dupont"),
        ("date", "2026-10-02"),
        ("description", "Cats & mice <3"),
    ] {
        assert_eq!(object[field], want, "{field}");
    }
    assert!(object["sitename"].is_null(), "a handle is no site name");
}

#[test]
fn json_fields_hold_no_control_character() {
    let page = "<html><head><title>Storm\x01 reaches\x7f the\u{9f} coast</title>\
        <meta name=author content=\"Jane\x1b Reporter\">\
        <meta property=og:site_name content=\"Coastal\x0b\x1f Times\">\
        <meta name=description content=\"A storm\u{80} reached\x08 the coast.\">\
        <script type=application/ld+json>{\"datePublished\": \"2026-10-02\\u0007T08:00\"}</script>\
        </head><body><p>The storm reached the coast on Friday night and the sea wall held.</p></body></html>";
    let object = &json_record(page);
    for (field, want) in [
        ("title", "Storm reaches the coast"),
        ("author", "Jane Reporter"),
        ("sitename", "Coastal Times"),
        ("description", "A storm reached the coast."),
        ("date", "2026-10-02"),
    ] {
        assert_eq!(object[field], want, "{field}");
        let value = object[field].as_str().unwrap();
        assert!(!value.chars().any(char::is_control), "{field}: {value:?}");
    }
}

#[test]
fn json_works_for_cleaneval_warc_and_jsonl_inputs() {
    let wrapped = fixture("pages/cleaneval-wrapper.html");
    let out = ppl_filter(&["--format", "json", wrapped.to_str().unwrap()], b"");
    let object = &parse_lines(&out)[0];
    assert!(
        object["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http")),
        "{object}"
    );
    let warc = fixture("warc/small.warc.gz");
    let out = ppl_filter(&["-q", "--format", "json", warc.to_str().unwrap()], b"");
    let objects_ = parse_lines(&out);
    assert_eq!(objects_.len(), 2);
    assert_eq!(objects_[0]["url"], "http://example.com/caf%C3%A9");
    assert!(objects_[0]["warc_record_id"].as_str().is_some());
    // Each response names the WARC file it came from.
    for object in &objects_ {
        assert_eq!(object["source"], warc.to_str().unwrap());
    }
    let jsonl = fixture("jsonl/pages.jsonl");
    let out = ppl_filter(&["-q", "--format", "json", jsonl.to_str().unwrap()], b"");
    let lines = parse_lines(&out);
    assert!(lines.iter().all(|o| o["text"].is_string()), "{lines:?}");
    // `jsonl` is another name for `json`.
    let alias = ppl_filter(&["-q", "--format", "jsonl", warc.to_str().unwrap()], b"");
    let json = ppl_filter(&["-q", "--format", "json", warc.to_str().unwrap()], b"");
    assert_eq!(alias.stdout, json.stdout);
}

#[test]
fn markdown_shows_headings_lists_and_paragraphs() {
    let out = ppl_filter(&["--format", "markdown", "--title"], PAGE.as_bytes());
    let text = stdout(&out);
    assert!(
        text.starts_with("# Budget & school\n\n# The new budget\n\n"),
        "{text}"
    );
    assert!(
        text.contains("\n\n- More teachers for the primary schools"),
        "{text}"
    );
    assert!(
        text.contains("\n\nThe plan now goes to the council"),
        "{text}"
    );
    assert!(!text.contains("Home"), "{text}");
}

#[test]
fn the_title_is_kept_when_asked_for_with_the_default_method() {
    // A title the classifier alone would drop: short, link-like, unlike the page's prose.
    let page = "<title>Home | Login | Contact</title><p>The committee approved the new budget for the school year after a long debate on Tuesday evening.</p>";
    let out = ppl_filter(&["--title"], page.as_bytes());
    assert!(
        stdout(&out).starts_with("Home | Login | Contact\n"),
        "{}",
        stdout(&out)
    );
    let without = ppl_filter(&[], page.as_bytes());
    assert!(!stdout(&without).contains("Login"));
}

#[test]
fn output_field_keeps_the_html() {
    let line = "{\"id\":1,\"html\":\"<p>The committee approved the new budget for the school year.</p><nav><a href=/>Home</a></nav>\"}\n";
    let out = ppl_filter(
        &["--input", "jsonl", "--output-field", "text"],
        line.as_bytes(),
    );
    let object: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(object["html"]
        .as_str()
        .unwrap()
        .starts_with("<p>The committee"));
    assert_eq!(
        object["text"],
        "The committee approved the new budget for the school year."
    );
    let replaced = ppl_filter(&["--input", "jsonl"], line.as_bytes());
    let object: serde_json::Value = serde_json::from_str(stdout(&replaced).trim()).unwrap();
    assert_eq!(
        object["html"],
        "The committee approved the new budget for the school year."
    );
}

/// A forum thread: its question, then its answers in a comment thread's markup.
const THREAD: &str = "<html><head><title>Boiling eggs</title>\
<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"DiscussionForumPosting\",\
\"headline\":\"How long do I boil an egg?\"}</script></head><body>\
<nav><a href=/>Home</a> <a href=/latest>Latest</a></nav><main><h1>How long do I boil an egg?</h1>\
<p>I want the white set and the yolk still soft in the middle. How many minutes should it take from boiling water?</p>\
<div id=comments><div class=comment><p>Six and a half minutes from boiling water gives a set white and a soft, \
runny yolk for a large egg straight from the fridge.</p></div>\
<div class=comment><p>Put the eggs into iced water as soon as they come out, or they keep cooking and the yolk \
sets hard before you get to eat them.</p></div></div></main></body></html>";

#[test]
fn the_kind_of_page_sets_what_is_content_and_is_reported() {
    let decided = |extra: &[&str], html: &str| {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        let out = ppl_filter(&args, html.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let object = parse_lines(&out).remove(0);
        (
            object["kind"].as_str().unwrap().to_string(),
            object["text"].as_str().unwrap().to_string(),
        )
    };
    // Declared a forum thread: the answers are the content, not readers' comments.
    let (kind, text) = decided(&[], THREAD);
    assert_eq!(kind, "forum");
    assert!(
        text.contains("How many minutes") && text.contains("Six and a half"),
        "{text}"
    );
    assert!(text.contains("iced water"), "{text}");
    // A thread that declares nothing is told a forum from what the page shows, and its answers
    // are kept; with --kind, it is decided as that kind.
    let undeclared = THREAD.replace("DiscussionForumPosting", "Thing");
    let (told, told_text) = decided(&[], &undeclared);
    assert_eq!(told, "forum");
    assert!(told_text.contains("Six and a half"), "{told_text}");
    assert_eq!(decided(&["--kind", "other"], &undeclared).0, "other");
    assert_eq!(decided(&["--kind", "forum"], &undeclared), (kind, text));
    assert_eq!(decided(&["--kind", "article"], THREAD).0, "article");
    // A news story that declares nothing is told an article.
    assert_eq!(decided(&[], PAGE).0, "article");
    // --kind is refused with the perplexity method, and an unknown kind is refused.
    for args in [
        &["--method", "perplexity", "--kind", "forum"][..],
        &["--kind", "blog"],
    ] {
        let out = ppl_filter(args, PAGE.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("kind"), "{}", stderr(&out));
    }
}
