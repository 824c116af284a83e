//! A robots.txt's rules for one crawler (RFC 9309), kept in memory linear in the rules.
//!
//! Written here rather than taken from a crate: `texting_robots`, used before, compiles each
//! wildcard rule into a regular expression (a file of rules such as `Disallow: /*a*b*c*d$`
//! costs hundreds of times its size once compiled, and it was kept for every host);
//! `robotstxt` (a port of Google's parser) keeps nothing compiled, but takes only `&str` (a
//! file that is not UTF-8 must be converted first), slices strings at byte offsets and can
//! panic on such input (its issue #5, open since its last release in 2021), and has no
//! `Crawl-delay`. Here the file is read as bytes, line by line, and only the group that
//! applies to the crawler is kept: its rules' patterns, normalised, in one buffer. A pattern
//! is matched without compiling anything: its `*`-separated pieces are found in turn, each
//! as early as it can be (which finds a match whenever there is one), `$` at its end
//! anchoring the last piece at the end of the path; time is linear in the path and the
//! pattern.
//!
//! The rules (RFC 9309): the groups whose `User-agent` names the crawler (its product token,
//! case-insensitive) apply, else the groups of `*`; among the rules whose pattern matches the
//! path (and query), the longest pattern decides, `Allow` winning a tie; no matching rule
//! allows. Patterns and paths are compared after the same normalisation: bytes outside
//! printable ASCII percent-encoded, `%xx` in upper case, and a `%xx` of an unreserved
//! character (letters, digits, `-._~`) decoded.

use std::time::Duration;

/// The longest robots.txt read: RFC 9309 asks a crawler to read at least 500 KiB; what comes
/// after is ignored.
pub const MAX_ROBOTS_BYTES: u64 = 500 * 1024;

/// The longest `Crawl-delay` obeyed, in seconds (a longer one is taken as this).
const MAX_CRAWL_DELAY: f64 = 60.0;

/// The rules of a robots.txt that apply to one crawler.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Robots {
    /// Every rule's normalised pattern, one after the other.
    patterns: Vec<u8>,
    /// The rules, in the file's order.
    rules: Vec<Rule>,
    /// The group's `Crawl-delay`, when it gives one that is a number.
    delay: Option<Duration>,
}

/// One `Allow` or `Disallow` rule: its pattern is `patterns[start..start + len]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rule {
    start: u32,
    len: u32,
    allow: bool,
}

/// The rules of one kind of group (the crawler's, or `*`'s) as they are read.
#[derive(Default)]
struct Collected {
    /// A group of this kind was seen (even one without rules).
    seen: bool,
    robots: Robots,
}

impl Collected {
    fn rule(&mut self, allow: bool, pattern: &[u8]) {
        let robots = &mut self.robots;
        let start = robots.patterns.len();
        normalise(pattern, &mut robots.patterns);
        let (Ok(start), Ok(len)) = (
            u32::try_from(start),
            u32::try_from(robots.patterns.len() - start),
        ) else {
            robots.patterns.truncate(start);
            return;
        };
        robots.rules.push(Rule { start, len, allow });
    }
}

impl Robots {
    /// The rules of `text` (a robots.txt, at most [`MAX_ROBOTS_BYTES`] of it read) that apply to
    /// the crawler `agent` (a product token such as `ppl-filter`).
    pub fn parse(text: &[u8], agent: &str) -> Robots {
        let text = match text.get(..MAX_ROBOTS_BYTES as usize) {
            Some(read) if read.len() < text.len() => whole_lines(read),
            _ => text,
        };
        let mut own = Collected::default();
        let mut any = Collected::default();
        // Whether the group being read is the crawler's, or `*`'s.
        let (mut for_own, mut for_any) = (false, false);
        // The last line was a User-agent line: another one adds to the same group.
        let mut in_agents = false;
        for line in text.split(|&b| b == b'\n' || b == b'\r') {
            let line = match memchr::memchr(b'#', line) {
                Some(comment) => &line[..comment],
                None => line,
            };
            let Some(colon) = memchr::memchr(b':', line) else {
                continue;
            };
            let key = line[..colon].trim_ascii();
            let value = line[colon + 1..].trim_ascii();
            let is = |name: &str| key.eq_ignore_ascii_case(name.as_bytes());
            if is("user-agent") || is("useragent") || is("user agent") {
                if !in_agents {
                    (for_own, for_any) = (false, false);
                }
                in_agents = true;
                if value.starts_with(b"*") {
                    for_any = true;
                    any.seen = true;
                } else {
                    let token_len = value
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b'_')
                        .count();
                    if value[..token_len].eq_ignore_ascii_case(agent.as_bytes()) {
                        for_own = true;
                        own.seen = true;
                    }
                }
                continue;
            }
            let allow = if is("allow") {
                Some(true)
            } else if is("disallow") || is("dissallow") || is("disalow") {
                Some(false)
            } else {
                None
            };
            let delay = is("crawl-delay") || is("crawldelay");
            if allow.is_none() && !delay {
                // Sitemap and other lines belong to no group, and do not end one.
                continue;
            }
            in_agents = false;
            for (applies, group) in [(for_own, &mut own), (for_any, &mut any)] {
                if !applies {
                    continue;
                }
                match allow {
                    // An empty pattern matches nothing: the rule says nothing.
                    Some(allow) if !value.is_empty() => group.rule(allow, value),
                    Some(_) => {}
                    None if group.robots.delay.is_none() => {
                        group.robots.delay = crawl_delay(value);
                    }
                    None => {}
                }
            }
        }
        let mut robots = if own.seen { own.robots } else { any.robots };
        robots.patterns.shrink_to_fit();
        robots.rules.shrink_to_fit();
        robots
    }

    /// Whether the crawler may fetch `path` (a URL's path and query, as `/a/b?c`).
    pub fn allows(&self, path: &str) -> bool {
        let mut normalised = Vec::with_capacity(path.len());
        normalise(path.as_bytes(), &mut normalised);
        // The longest matching pattern so far, and whether it allows.
        let mut best: Option<(u32, bool)> = None;
        for rule in &self.rules {
            if best.is_some_and(|(len, allow)| len > rule.len || (len == rule.len && allow)) {
                continue;
            }
            let start = rule.start as usize;
            let pattern = &self.patterns[start..start + rule.len as usize];
            if matches(pattern, &normalised) {
                best = Some((rule.len, rule.allow));
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }

    /// The group's `Crawl-delay`, at most a minute; `None` when it gives none, or one that is
    /// not a number.
    pub fn crawl_delay(&self) -> Option<Duration> {
        self.delay
    }

    /// The bytes of memory its rules take.
    pub fn heap_bytes(&self) -> usize {
        self.patterns.capacity() + self.rules.capacity() * std::mem::size_of::<Rule>()
    }
}

/// `text` without its last line when that line has no end: the part of a file cut short
/// that is whole lines (a rule cut in the middle would say less, or more, than its line).
pub fn whole_lines(text: &[u8]) -> &[u8] {
    match memchr::memrchr2(b'\n', b'\r', text) {
        Some(end) => &text[..=end],
        None => &[],
    }
}

/// A `Crawl-delay` value in seconds, clamped to a minute; `None` when it is not a number.
fn crawl_delay(value: &[u8]) -> Option<Duration> {
    let seconds: f64 = std::str::from_utf8(value).ok()?.trim().parse().ok()?;
    // NaN stays NaN when clamped, and is no duration.
    Duration::try_from_secs_f64(seconds.clamp(0.0, MAX_CRAWL_DELAY)).ok()
}

/// Whether `pattern` (`*` matching any bytes, a final `$` the end) matches `path` from its
/// start. Each piece between `*`s is found as early as it can be after the one before: if any
/// placement matches, this one does.
fn matches(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(pattern) => (pattern, true),
        None => (pattern, false),
    };
    let mut pieces = pattern.split(|&b| b == b'*');
    let first = pieces.next().unwrap_or_default();
    if !path.starts_with(first) {
        return false;
    }
    let mut at = first.len();
    let Some(mut piece) = pieces.next() else {
        // No `*`: a prefix, or the whole path when anchored.
        return !anchored || at == path.len();
    };
    for next in pieces {
        if !piece.is_empty() {
            match memchr::memmem::find(&path[at..], piece) {
                Some(found) => at += found + piece.len(),
                None => return false,
            }
        }
        piece = next;
    }
    // The last piece: at the end of the path when anchored, anywhere after `at` if not.
    if anchored {
        path.len() >= at + piece.len() && path.ends_with(piece)
    } else {
        piece.is_empty() || memchr::memmem::find(&path[at..], piece).is_some()
    }
}

/// Appends `bytes` to `out` normalised for comparison: bytes outside printable ASCII
/// percent-encoded, percent-escapes in upper case, and those of unreserved characters
/// (RFC 3986: letters, digits, `-._~`) decoded.
fn normalise(bytes: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                let decoded = high << 4 | low;
                if decoded.is_ascii_alphanumeric() || b"-._~".contains(&decoded) {
                    out.push(decoded);
                } else {
                    out.extend_from_slice(&[b'%', HEX[high as usize], HEX[low as usize]]);
                }
                i += 3;
                continue;
            }
        }
        if b <= b' ' || b >= 0x7f {
            out.extend_from_slice(&[b'%', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
        } else {
            out.push(b);
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn robots(text: &str) -> Robots {
        Robots::parse(text.as_bytes(), "ppl-filter")
    }

    #[test]
    fn the_crawlers_group_applies_else_the_group_of_any_crawler() {
        let text = "User-agent: *\nDisallow: /\n\nUser-agent: other\nUser-agent: PPL-Filter/2.0\n\
                    Disallow: /private\nCrawl-delay: 2.5\n";
        let r = robots(text);
        assert!(r.allows("/public"));
        assert!(!r.allows("/private/page"));
        assert_eq!(r.crawl_delay(), Some(Duration::from_millis(2500)));
        let r = robots("User-agent: googlebot\nDisallow: /\nUser-agent: *\nDisallow: /x\n");
        assert!(r.allows("/y"));
        assert!(!r.allows("/x/y"));
        // The crawler's group applies even when it has no rule.
        let r = robots("User-agent: *\nDisallow: /\nUser-agent: ppl-filter\n");
        assert!(r.allows("/anything"));
        // Rules before any User-agent line, and of other crawlers, do not apply.
        let r = robots("Disallow: /\nUser-agent: ppl-filterbot\nDisallow: /\n");
        assert!(r.allows("/"));
        // Groups of the crawler are merged; a Sitemap line does not end a group.
        let r = robots(
            "User-agent: ppl-filter\nDisallow: /a\nSitemap: /s.xml\nDisallow: /b\n\
             User-agent: ppl-filter\nDisallow: /c\n",
        );
        assert!(!r.allows("/a") && !r.allows("/b") && !r.allows("/c") && r.allows("/d"));
    }

    #[test]
    fn the_longest_match_decides_and_allow_wins_a_tie() {
        let r = robots("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b/c\n");
        assert!(!r.allows("/a/x"));
        assert!(r.allows("/a/b/x"));
        assert!(!r.allows("/a/b/c"));
        let r = robots("User-agent: *\nDisallow: /page\nAllow: /page\n");
        assert!(r.allows("/page"));
        let r = robots("User-agent: *\nAllow: /$\nDisallow: /\n");
        assert!(r.allows("/"));
        assert!(!r.allows("/x"));
        let r = robots("User-agent: *\nDisallow:\nDisallow: \n");
        assert!(r.allows("/"));
    }

    #[test]
    fn wildcards_and_end_anchors_match_as_rfc_9309_says() {
        let cases = [
            ("/*.php$", "/index.php", true),
            ("/*.php$", "/index.php?x", false),
            ("/*.php", "/a/b.php?x", true),
            ("/fish*", "/fishheads", true),
            ("/fish*", "/Fish", false),
            ("/*a*b*c$", "/xaxbxc", true),
            ("/*a*b*c$", "/xaxbxcx", false),
            ("/*a*b*c$", "/cba", false),
            ("*", "/", true),
            ("/a$", "/a", true),
            ("/a$", "/ab", false),
            ("/a*$", "/abc", true),
            ("/**a", "/xa", true),
            ("/a$b", "/a$b", true),
            ("/*aa$", "/aaa", true),
            ("/*ab*ab$", "/abab", true),
            ("/*ab*ab$", "/ab", false),
        ];
        for (pattern, path, expected) in cases {
            let mut p = Vec::new();
            normalise(pattern.as_bytes(), &mut p);
            assert_eq!(matches(&p, path.as_bytes()), expected, "{pattern} {path}");
        }
    }

    #[test]
    fn paths_and_patterns_are_compared_percent_normalised() {
        let r =
            robots("User-agent: *\nDisallow: /caf\u{e9}\nDisallow: /%7euser\nDisallow: /a%2fb\n");
        assert!(!r.allows("/caf%C3%A9"));
        assert!(!r.allows("/caf%c3%a9/x"));
        assert!(!r.allows("/~user/page"));
        assert!(!r.allows("/a%2Fb"));
        assert!(r.allows("/a/b"));
        let mut out = Vec::new();
        normalise(b"/a b%4a%zz%", &mut out);
        assert_eq!(out, b"/a%20bJ%zz%");
    }

    #[test]
    fn junk_bytes_and_odd_lines_are_read_without_harm() {
        let mut junk: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        junk.extend_from_slice(b"\nUser-agent: *\nDisallow: /\xff\xfe\n\r\rDisallow: /x%\n");
        let r = Robots::parse(&junk, "ppl-filter");
        assert!(!r.allows("/%FF%FE"));
        assert!(!r.allows("/x%"));
        assert!(r.allows("/y"));
        for delay in ["NaN", "-3", "inf", "1e400", "x"] {
            let r = robots(&format!("User-agent: *\nCrawl-delay: {delay}\n"));
            let d = r.crawl_delay();
            assert!(
                d.is_none() || d <= Some(Duration::from_secs(60)),
                "{delay}: {d:?}"
            );
        }
    }

    #[test]
    fn only_the_first_500_kib_is_read_and_memory_is_linear_in_the_rules() {
        let rule = "Disallow: /*a*b*c*d*e*f*g$\n";
        let mut text = String::from("User-agent: *\n");
        while text.len() < 2 * MAX_ROBOTS_BYTES as usize {
            text.push_str(rule);
        }
        text.push_str("Disallow: /late\n");
        let r = robots(&text);
        assert!(
            r.allows("/late"),
            "a rule past 500 KiB is not read, nor a line cut there"
        );
        assert!(!r.allows("/xaxbxcxdxexfxg"));
        assert!(r.heap_bytes() <= 2 * MAX_ROBOTS_BYTES as usize);
        assert_eq!(whole_lines(b"a\nb\nc"), b"a\nb\n");
        assert_eq!(whole_lines(b"abc"), b"");
        // Another crawler's group is not kept at all.
        let r = Robots::parse(text.replace('*', "x").as_bytes(), "ppl-filter");
        assert_eq!(r.heap_bytes(), 0);
    }
}
