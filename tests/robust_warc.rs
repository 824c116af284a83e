//! WARC reading on damaged input: every intact record comes out once, in order, whatever
//! happened to its neighbours (a corrupt gzip member, junk between members, a record cut short,
//! glued to the next, with flipped bytes, junk inside or a wrong Content-Length), and the
//! messages tell the truth; a damaged chunked HTTP body gives a prefix of its data, never a
//! chunk-size line, and says it is damaged. Every input is generated here.

use std::io::{BufReader, Cursor, Read, Write};
use std::sync::Mutex;

use flate2::write::GzEncoder;
use ppl_filter::lm;
use ppl_filter::pipeline::{self, InputFormat, Options, Problem, Severity};
use ppl_filter::sink::render::OutputMode;
use ppl_filter::sink::warc::WarcWriter;
use ppl_filter::source::http::looks_like_html;
use ppl_filter::source::warc::{http_response_parts, WarcError, WarcReader, WarcRecord};
use ppl_filter::source::{gzip, maybe_gunzip, Input};
use proptest::prelude::*;
use proptest::sample::Index;

fn id(n: usize) -> String {
    format!("<urn:uuid:00000000-0000-4000-8000-{n:012}>")
}

fn http(n: usize) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body><p>Page number {n} tells a story about the town and its river.</p></body></html>\n"
    )
    .into_bytes()
}

/// A response record as warcio writes it (a `WARC-Refers-To` header too, a place to cut).
fn record(n: usize, block: &[u8]) -> Vec<u8> {
    let mut bytes = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: {}\r\nWARC-Date: 2024-05-01T12:00:00Z\r\nWARC-Refers-To: <urn:uuid:{n:08}-aaaa-4000-8000-000000000000>\r\nWARC-Target-URI: http://example.com/{n}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        id(n),
        block.len()
    )
    .into_bytes();
    bytes.extend_from_slice(block);
    bytes.extend_from_slice(b"\r\n\r\n");
    bytes
}

fn records(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| record(i, &http(i))).collect()
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// The records read and the errors, opening `bytes` as the pipeline does (`maybe_gunzip`).
fn read(bytes: Vec<u8>, max_record_bytes: u64) -> (Vec<WarcRecord>, Vec<WarcError>) {
    let content = maybe_gunzip(Box::new(Cursor::new(bytes))).unwrap();
    let (mut recs, mut errors) = (Vec::new(), Vec::new());
    for result in WarcReader::new(BufReader::new(content))
        .with_max_record_bytes(max_record_bytes)
        .take(10_000)
    {
        match result {
            Ok(rec) => recs.push(rec),
            Err(e) => errors.push(e),
        }
    }
    (recs, errors)
}

fn messages(errors: &[WarcError]) -> Vec<String> {
    errors.iter().map(|e| e.to_string()).collect()
}

/// Every record of `0..n` came out intact (its ID, target and block), once, in order, except
/// perhaps `damaged`, which may also come out as one record that is not intact; `Err` says what
/// is wrong.
fn check_intact(recs: &[WarcRecord], n: usize, damaged: Option<usize>) -> Result<(), String> {
    let intact = |r: &WarcRecord, i: usize| {
        r.record_id == id(i)
            && r.payload == http(i)
            && r.target_uri.as_deref() == Some(&format!("http://example.com/{i}")[..])
    };
    let mut got = Vec::new();
    let mut others = Vec::new();
    for rec in recs {
        match (0..n).find(|&i| intact(rec, i)) {
            Some(i) => got.push(i),
            None => others.push(rec.record_id.clone()),
        }
    }
    let all: Vec<usize> = (0..n).collect();
    let but_damaged: Vec<usize> = (0..n).filter(|&i| Some(i) != damaged).collect();
    if got != all && got != but_damaged {
        return Err(format!(
            "intact records {got:?}, want {but_damaged:?} (others: {others:?})"
        ));
    }
    if others.len() > usize::from(damaged.is_some()) {
        return Err(format!("records that are not intact: {others:?}"));
    }
    Ok(())
}

fn header_len(rec: &[u8]) -> usize {
    memchr::memmem::find(rec, b"\r\n\r\n").unwrap() + 4
}

// Row 4: gzip.

/// The ways a gzip member (or the bytes after it) gets damaged.
#[derive(Clone, Debug)]
enum GzDamage {
    /// Bytes of the member (at these fractions of its length) xored with non-zero values.
    Flip(Vec<(f64, u8)>),
    /// The member cut short (to this fraction of its length), the next one right after it.
    Cut(f64),
    /// Junk between this member and the next.
    Junk(Vec<u8>),
}

fn gz_damage() -> impl Strategy<Value = GzDamage> {
    prop_oneof![
        proptest::collection::vec((0.0..1.0f64, 1u8..), 1..4).prop_map(GzDamage::Flip),
        (0.0..1.0f64).prop_map(GzDamage::Cut),
        proptest::collection::vec(any::<u8>(), 1..24).prop_map(GzDamage::Junk),
        Just(GzDamage::Junk(
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff".to_vec()
        )),
    ]
}

/// One member per record, member `k` damaged: the records and errors read, and the compressed
/// offset of the damage.
fn read_damaged_gz(
    n: usize,
    k: usize,
    damage: &GzDamage,
) -> (Vec<WarcRecord>, Vec<WarcError>, usize) {
    let mut members: Vec<Vec<u8>> = records(n).iter().map(|r| gz(r)).collect();
    let at = members[..k].iter().map(Vec::len).sum::<usize>();
    let mut at_damage = at;
    match damage {
        GzDamage::Flip(flips) => {
            for (at, x) in flips {
                let i = (at * members[k].len() as f64) as usize;
                members[k][i] ^= x;
            }
        }
        GzDamage::Cut(at) => {
            let keep = (at * members[k].len() as f64) as usize;
            members[k].truncate(keep);
        }
        GzDamage::Junk(junk) => {
            at_damage += members[k].len();
            members[k].extend_from_slice(junk);
        }
    }
    let (recs, errors) = read(members.concat(), 1 << 20);
    (recs, errors, at_damage)
}

#[test]
fn gz_corrupt_member_loses_only_its_record() {
    let n = 10;
    for k in 0..n {
        let members: Vec<Vec<u8>> = records(n).iter().map(|r| gz(r)).collect();
        let start: usize = members[..k].iter().map(Vec::len).sum();
        // A byte in the middle of the deflate data.
        let flip = GzDamage::Flip(vec![(0.5, 0x55)]);
        let (recs, errors, _) = read_damaged_gz(n, k, &flip);
        check_intact(&recs, n, Some(k)).unwrap();
        let all = messages(&errors).join("\n");
        assert!(
            all.contains(&format!("damaged gzip member at compressed byte {start} (")),
            "{k}: {all}"
        );
        if k + 1 < n {
            assert!(
                all.contains(&format!(
                    "resumed at the next member, at byte {}",
                    start + members[k].len()
                )),
                "{all}"
            );
        }
        assert!(errors.iter().all(|e| e.to_string().lines().count() == 1));
    }
}

#[test]
fn gz_junk_between_members_loses_nothing() {
    let n = 10;
    for k in 0..n - 1 {
        let (recs, errors, at) = read_damaged_gz(n, k, &GzDamage::Junk(b"7 junk!".to_vec()));
        check_intact(&recs, n, None).unwrap();
        let want = format!(
            "7 bytes at compressed byte {at} are not a gzip member (junk or a damaged header); resumed at the next member, at byte {}",
            at + 7
        );
        assert_eq!(messages(&errors), [want]);
        assert!(matches!(
            errors[0],
            WarcError::Damaged {
                record_id: None,
                ..
            }
        ));
    }
}

#[test]
fn gz_member_cut_short_inside_the_file_loses_only_its_record() {
    let n = 6;
    for k in 0..n - 1 {
        for cut in [0.1, 0.5, 0.9] {
            let (recs, errors, at) = read_damaged_gz(n, k, &GzDamage::Cut(cut));
            check_intact(&recs, n, Some(k))
                .unwrap_or_else(|e| panic!("{k} {cut}: {e}: {:?}", messages(&errors)));
            assert!(
                messages(&errors)
                    .join("\n")
                    .contains(&format!("compressed byte {at}")),
                "{:?}",
                messages(&errors)
            );
        }
    }
}

#[test]
fn gz_member_cut_at_the_end_is_truncated() {
    // The fixture: its last member is cut.
    let path = format!("{}/fixtures/warc/small.warc.gz", env!("CARGO_MANIFEST_DIR"));
    let (recs, errors) = read(std::fs::read(path).unwrap(), 1 << 20);
    assert_eq!(recs.len(), 5);
    assert_eq!(
        messages(&errors),
        ["record <urn:uuid:00000000-0000-4000-8000-000000000006>: truncated (input ended inside the record)"]
    );
    // Cut anywhere in the last member: the others stand, the cut is reported as truncation.
    let n = 4;
    let members: Vec<Vec<u8>> = records(n).iter().map(|r| gz(r)).collect();
    let start: usize = members[..n - 1].iter().map(Vec::len).sum();
    for keep in 1..members[n - 1].len() {
        let mut bytes = members.concat();
        bytes.truncate(start + keep);
        let (recs, errors) = read(bytes, 1 << 20);
        check_intact(&recs, n, Some(n - 1)).unwrap();
        let all = messages(&errors);
        assert_eq!(all.len(), 1, "{keep}: {all:?}");
        assert!(
            matches!(errors[0], WarcError::Truncated { .. })
                || all[0] == format!("gzip member at compressed byte {start} is truncated (the input ends at byte {})", start + keep),
            "{keep}: {all:?}"
        );
    }
}

#[test]
fn gzipped_html_keeps_text_read_before_the_damage() {
    let mut bytes = gz(b"<p>First part.</p>");
    let start = bytes.len();
    let mut bad = gz(b"<p>Second part, damaged.</p>");
    let len = bad.len();
    bad[len / 2] ^= 0xff;
    bytes.extend(bad);
    bytes.extend(gz(b"<p>Third part.</p>"));
    let mut reader = maybe_gunzip(Box::new(Cursor::new(bytes))).unwrap();
    let mut text = Vec::new();
    let err = reader.read_to_end(&mut text).unwrap_err();
    assert!(
        text.starts_with(b"<p>First part.</p>"),
        "{}",
        String::from_utf8_lossy(&text)
    );
    assert!(gzip::is_resumable(&err));
    assert!(
        err.to_string()
            .starts_with(&format!("damaged gzip member at compressed byte {start} (")),
        "{err}"
    );
    // A reader that goes on gets the rest.
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
    assert!(rest.ends_with(b"<p>Third part.</p>"));
}

#[test]
fn pipeline_warns_with_file_name_and_compressed_offset() {
    let n = 5;
    let mut members: Vec<Vec<u8>> = records(n).iter().map(|r| gz(r)).collect();
    let start: usize = members[..2].iter().map(Vec::len).sum();
    let len = members[2].len();
    members[2][len / 2] ^= 0x55;
    let path = std::env::temp_dir().join(format!("ppl-robust-warc-{}.warc.gz", std::process::id()));
    std::fs::write(&path, members.concat()).unwrap();
    let mut options = Options::default();
    options.read.input_format = InputFormat::Warc;
    options.render.mode = OutputMode::Mark;
    let mut sink = ppl_filter::sink::StreamSink::new(Vec::new(), b"\n");
    let problems = Mutex::new(Vec::new());
    let observe = |p: &Problem| problems.lock().unwrap().push(p.clone());
    pipeline::run(
        &[Input::File(path.clone())],
        lm::model::embedded(),
        &options,
        &mut sink,
        &observe,
    )
    .unwrap();
    std::fs::remove_file(&path).unwrap();
    let text = String::from_utf8(sink.into_inner()).unwrap();
    for i in [0, 1, 3, 4] {
        assert!(text.contains(&format!("Page number {i} ")), "{i}: {text}");
    }
    let problems = problems.into_inner().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p.input == path.display().to_string()
                && p.severity == Severity::Warning
                && p.message().contains(&format!("compressed byte {start}"))
                && !p.message().contains('\n')),
        "{problems:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whatever happens to one gzip member, every other record comes out once, in order.
    #[test]
    fn gz_damage_to_one_member_loses_at_most_its_record(n in 2usize..8, k in any::<Index>(), damage in gz_damage()) {
        let k = k.index(n);
        let (recs, errors, _) = read_damaged_gz(n, k, &damage);
        let damaged = if matches!(damage, GzDamage::Junk(_)) { None } else { Some(k) };
        if let Err(e) = check_intact(&recs, n, damaged) {
            prop_assert!(false, "{}; errors: {:?}", e, messages(&errors));
        }
        for e in &errors {
            prop_assert_eq!(e.to_string().lines().count(), 1);
        }
    }
}

// Row 5: plain WARC.

/// The ways a record gets damaged.
#[derive(Clone, Debug)]
enum Damage {
    /// Cut inside its header (the next record glued to the cut).
    CutHeader(Index),
    /// Cut inside its block or the blank line after it.
    CutBlock(Index),
    /// Bytes xored with non-zero values.
    Flip(Vec<(Index, u8)>),
    /// Cut inside a header line (not at a line end).
    CutMidLine(Index, Index),
    /// Its Content-Length replaced: 10^18, or larger than it is by some amount.
    HugeLength(Option<u32>),
    /// Junk inserted into it.
    Junk(Index, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<Index>().prop_map(Damage::CutHeader),
        any::<Index>().prop_map(Damage::CutBlock),
        proptest::collection::vec((any::<Index>(), 1u8..), 1..5).prop_map(Damage::Flip),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Damage::CutMidLine(a, b)),
        proptest::option::of(1u32..2_000_000).prop_map(Damage::HugeLength),
        (
            any::<Index>(),
            proptest::collection::vec(any::<u8>(), 1..40)
        )
            .prop_map(|(a, b)| Damage::Junk(a, b)),
    ]
}

fn apply(rec: &mut Vec<u8>, damage: &Damage) {
    let head = header_len(rec);
    match damage {
        Damage::CutHeader(i) => rec.truncate(i.index(head)),
        Damage::CutBlock(i) => rec.truncate(head + i.index(rec.len() - head)),
        Damage::Flip(flips) => {
            for (i, x) in flips {
                let i = i.index(rec.len());
                rec[i] ^= x;
            }
        }
        Damage::CutMidLine(line, at) => {
            let ends: Vec<usize> = memchr::memmem::find_iter(&rec[..head - 2], b"\r\n").collect();
            let end = ends[line.index(ends.len())];
            let start = ends.iter().rev().find(|&&e| e < end).map_or(0, |e| e + 2);
            rec.truncate(start + 1 + at.index(end - start - 1));
        }
        Damage::HugeLength(more) => {
            let text = String::from_utf8(rec[..head].to_vec()).unwrap();
            let len: u64 = text
                .split("Content-Length: ")
                .nth(1)
                .unwrap()
                .split('\r')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let huge = more.map_or(1_000_000_000_000_000_000, |m| len + u64::from(m));
            let text = text.replace(
                &format!("Content-Length: {len}\r"),
                &format!("Content-Length: {huge}\r"),
            );
            rec.splice(..head, text.into_bytes());
        }
        Damage::Junk(at, junk) => {
            let at = at.index(rec.len() + 1);
            rec.splice(at..at, junk.iter().copied());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// A WARC of `n` records, one of them damaged: all the others come out intact, in order,
    /// with any record bound (the default, and one smaller than the file).
    #[test]
    fn damage_to_one_record_loses_at_most_that_record(n in 2usize..12, k in any::<Index>(), damage in damage()) {
        let k = k.index(n);
        let mut recs = records(n);
        apply(&mut recs[k], &damage);
        let bytes = recs.concat();
        for max in [16 << 20, 1024] {
            let (got, errors) = read(bytes.clone(), max);
            if let Err(e) = check_intact(&got, n, Some(k)) {
                prop_assert!(false, "max {}: {}; errors: {:?}", max, e, messages(&errors));
            }
            for e in &errors {
                prop_assert_eq!(e.to_string().lines().count(), 1);
            }
        }
    }

    /// The same in gzip, one member per record (the damage inside the member's data).
    #[test]
    fn damage_to_one_gzipped_record_loses_at_most_that_record(n in 2usize..8, k in any::<Index>(), damage in damage()) {
        let k = k.index(n);
        let mut recs = records(n);
        apply(&mut recs[k], &damage);
        let bytes: Vec<u8> = recs.iter().flat_map(|r| gz(r)).collect();
        let (got, errors) = read(bytes, 16 << 20);
        if let Err(e) = check_intact(&got, n, Some(k)) {
            prop_assert!(false, "{}; errors: {:?}", e, messages(&errors));
        }
    }
}

#[test]
fn header_cut_mid_line_glued_to_the_next_record_is_reported_and_the_next_kept() {
    // `WARC-Refers-To: <urn:uuid:WARC/1.0`: the next record's version line glued to a cut header.
    let mut recs = records(5);
    let cut = memchr::memmem::find(&recs[2], b"WARC-Refers-To: <urn:uuid:").unwrap() + 26;
    recs[2].truncate(cut);
    let bytes = recs.concat();
    assert!(memchr::memmem::find(&bytes, b"WARC-Refers-To: <urn:uuid:WARC/1.0\r\n").is_some());
    let (got, errors) = read(bytes, 16 << 20);
    check_intact(&got, 5, Some(2)).unwrap();
    assert!(
        got.iter().all(|r| r.record_id != id(2)),
        "the cut record does not come out"
    );
    let all = messages(&errors);
    assert_eq!(all.len(), 1, "{all:?}");
    assert!(
        all[0].contains(&id(2)) && all[0].contains("header cut short"),
        "{all:?}"
    );
}

#[test]
fn header_cut_inside_a_name_glued_to_the_next_record() {
    for cut_in in [
        "WARC-Type",
        "WARC-Date: 20",
        "Content-Length",
        "WARC/1",
        "\r\n\r",
    ] {
        let mut recs = records(4);
        let at = memchr::memmem::find(&recs[1], cut_in.as_bytes()).unwrap() + cut_in.len() - 1;
        recs[1].truncate(at);
        let (got, errors) = read(recs.concat(), 16 << 20);
        check_intact(&got, 4, Some(1))
            .unwrap_or_else(|e| panic!("{cut_in:?}: {e} {:?}", messages(&errors)));
        assert!(!errors.is_empty());
    }
}

#[test]
fn huge_content_length_is_truncation_and_the_records_inside_come_out() {
    let mut recs = records(6);
    apply(&mut recs[1], &Damage::HugeLength(None));
    let (got, errors) = read(recs.concat(), 16 << 20);
    check_intact(&got, 6, Some(1)).unwrap();
    let all = messages(&errors);
    assert_eq!(all.len(), 1, "{all:?}");
    assert!(
        all[0].contains(&id(1))
            && all[0].contains("truncated")
            && all[0].contains("1000000000000000000"),
        "{all:?}"
    );
    // With a record bound smaller than the file: the records inside the span still come out.
    let mut recs = records(40);
    apply(&mut recs[1], &Damage::HugeLength(None));
    let (got, errors) = read(recs.concat(), 2000);
    check_intact(&got, 40, Some(1)).unwrap();
    assert_eq!(errors.len(), 1, "{:?}", messages(&errors));
}

#[test]
fn block_shorter_than_its_content_length_does_not_swallow_the_next_record() {
    for keep in [0, 1, 30, 90] {
        let mut recs = records(5);
        let head = header_len(&recs[2]);
        recs[2].truncate(head + keep);
        let (got, errors) = read(recs.concat(), 16 << 20);
        check_intact(&got, 5, Some(2))
            .unwrap_or_else(|e| panic!("{keep}: {e} {:?}", messages(&errors)));
        assert!(got.iter().all(|r| r.record_id != id(2)));
        assert!(
            messages(&errors).iter().any(|m| m.contains(&id(2))),
            "{:?}",
            messages(&errors)
        );
    }
}

#[test]
fn block_not_ended_by_a_blank_line_is_damage() {
    // Junk inserted inside the block: the Content-Length no longer fits.
    let mut recs = records(3);
    let at = header_len(&recs[1]) + 20;
    recs[1].splice(at..at, b"JUNK".iter().copied());
    let (got, errors) = read(recs.concat(), 16 << 20);
    check_intact(&got, 3, Some(1)).unwrap();
    assert!(got.iter().all(|r| r.record_id != id(1)));
    let all = messages(&errors);
    assert!(
        all[0].contains(&id(1)) && all[0].contains("not followed by \\r\\n\\r\\n"),
        "{all:?}"
    );
}

#[test]
fn a_long_header_line_is_reported_with_its_real_size() {
    let mut recs = records(3);
    let long = format!("X-Long: {}\r\n", "x".repeat(10 << 20));
    let at = header_len(&recs[1]) - 2;
    recs[1].splice(at..at, long.bytes());
    let (got, errors) = read(recs.concat(), 16 << 20);
    check_intact(&got, 3, Some(1)).unwrap();
    let all = messages(&errors);
    assert!(
        all[0].contains(&format!(
            "header line of {} bytes, longer than the limit of 65536",
            long.len()
        )),
        "{all:?}"
    );
    assert!(!all.iter().any(|m| m.contains("65536 bytes")), "{all:?}");
}

#[test]
fn a_header_cut_at_the_end_is_truncated() {
    for cut_in in [
        "WARC-Type: resp",
        "WARC-Record-ID: <urn:uuid:0000",
        "Content-Length: 1",
    ] {
        let mut recs = records(3);
        let at = memchr::memmem::find(&recs[2], cut_in.as_bytes()).unwrap() + cut_in.len();
        recs[2].truncate(at);
        let (got, errors) = read(recs.concat(), 16 << 20);
        check_intact(&got, 2, None).unwrap();
        let all = messages(&errors);
        assert_eq!(all.len(), 1, "{all:?}");
        assert!(matches!(errors[0], WarcError::Truncated { .. }), "{all:?}");
        assert!(!all[0].contains("colon"), "{all:?}");
    }
}

#[test]
fn garbage_glued_to_a_version_line_is_skipped_and_the_record_kept() {
    let mut recs = records(3);
    recs[1].splice(0..0, b"junk without a line end ".iter().copied());
    let (got, errors) = read(recs.concat(), 16 << 20);
    check_intact(&got, 3, None).unwrap();
    assert_eq!(
        messages(&errors),
        [format!(
            "byte {}: malformed WARC record: 24 bytes that are not a record",
            recs[0].len()
        )]
    );
    // And after a garbage line too long to keep.
    let mut recs = records(3);
    recs[1].splice(0..0, vec![b'#'; 100_000]);
    let (got, errors) = read(recs.concat(), 16 << 20);
    check_intact(&got, 3, None).unwrap();
    assert_eq!(
        messages(&errors),
        [format!(
            "byte {}: malformed WARC record: 100000 bytes that are not a record",
            recs[0].len()
        )]
    );
}

#[test]
fn too_large_records_are_still_skipped_by_their_length() {
    let mut recs = records(3);
    // A block that mentions a version line but is a genuine, correctly sized large record.
    let mut big = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n".to_vec();
    big.extend(b"x".repeat(5000));
    recs[1] = record(1, &big);
    let (got, errors) = read(recs.concat(), 1000);
    check_intact(&got, 3, Some(1)).unwrap();
    assert!(
        matches!(
            errors[..],
            [WarcError::TooLarge {
                length: 5045,
                limit: 1000,
                ..
            }]
        ),
        "{:?}",
        messages(&errors)
    );
}

// Row 13: HTTP parts and conversion records.

#[test]
fn interim_100_continue_is_skipped() {
    let payload = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>x</p>";
    let parts = http_response_parts(payload).unwrap();
    assert_eq!(parts.status, 200);
    assert_eq!(
        parts.content_type.as_deref(),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(parts.charset.as_deref(), Some("utf-8"));
    assert_eq!(&parts.decoded_body().unwrap()[..], b"<p>x</p>");
    assert!(parts.is_html());
    let two = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\nHTTP/1.0 404 Not Found\nContent-Type: text/plain\n\nnope";
    let parts = http_response_parts(two).unwrap();
    assert_eq!(
        (parts.status, &parts.decoded_body().unwrap()[..]),
        (404, &b"nope"[..])
    );
    assert!(!parts.is_html());
    // A lone interim response stays what it is.
    assert_eq!(
        http_response_parts(b"HTTP/1.1 100 Continue\r\n\r\n")
            .unwrap()
            .status,
        100
    );
}

#[test]
fn missing_content_type_is_sniffed() {
    let html = |body: &[u8]| {
        let mut payload = b"HTTP/1.1 200 OK\r\nServer: x\r\n\r\n".to_vec();
        payload.extend_from_slice(body);
        http_response_parts(&payload).unwrap().is_html()
    };
    for body in [
        &b"<!DOCTYPE html>\n<html>"[..],
        b"\xef\xbb\xbf  <HTML lang=en>",
        b"\n\n<head><title>x</title>",
        b"<!-- comment --><div>",
        b"<p>text",
        b"<Body>",
        b"<?xml version=\"1.0\"?>\n<!doctype html>",
        b"\xff\xfe<\0h\0t\0m\0l\0>\0",
    ] {
        assert!(html(body), "{:?}", String::from_utf8_lossy(body));
    }
    for body in [
        &b"\x89PNG\r\n\x1a\n"[..],
        b"{\"json\": 1}",
        b"plain text",
        b"<?xml version=\"1.0\"?><rss>",
        b"<pre",
        b"",
    ] {
        assert!(!html(body), "{:?}", String::from_utf8_lossy(body));
    }
    assert!(looks_like_html(b"  <div class=x>"));
    // A Content-Type, when there is one, decides.
    let parts =
        http_response_parts(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n<html>").unwrap();
    assert!(!parts.is_html());
    let parts = http_response_parts(b"HTTP/1.1 200 OK\r\nContent-Type: \r\n\r\n<html>").unwrap();
    assert!(parts.is_html());
}

#[test]
fn conversion_ids_are_unique_and_refers_to_never_empty() {
    let write = || {
        let mut w = WarcWriter::new(Vec::new());
        let ids: Vec<String> = ["<urn:uuid:a>", "<urn:uuid:a>", "", "", "<urn:uuid:b>"]
            .iter()
            .map(|source| {
                w.write_conversion(source, Some("http://e.com/"), None, "Same text.")
                    .unwrap()
            })
            .collect();
        (ids, w.into_inner())
    };
    let (ids, bytes) = write();
    assert_eq!(write(), (ids.clone(), bytes.clone()), "deterministic");
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(
        !text.contains("WARC-Refers-To: \r\n") && !text.contains("WARC-Refers-To:\r\n"),
        "{text}"
    );
    let recs: Vec<WarcRecord> = WarcReader::new(Cursor::new(&bytes))
        .map(|r| r.unwrap())
        .collect();
    let refers: Vec<Option<&str>> = recs.iter().map(|r| r.header("WARC-Refers-To")).collect();
    assert_eq!(
        refers,
        [
            Some("<urn:uuid:a>"),
            Some("<urn:uuid:a>"),
            None,
            None,
            Some("<urn:uuid:b>")
        ]
    );
    assert_eq!(
        recs.iter().map(|r| r.record_id.clone()).collect::<Vec<_>>(),
        ids
    );
}

/// `data` in `Transfer-Encoding: chunked` form, in chunks of the given sizes (cycled), with CRLF
/// or LF line ends: the encoding and where each size line starts.
fn chunk_encode(data: &[u8], sizes: &[usize], lf: bool) -> (Vec<u8>, Vec<usize>) {
    let eol: &[u8] = if lf { b"\n" } else { b"\r\n" };
    let (mut out, mut starts, mut at) = (Vec::new(), Vec::new(), 0);
    for size in sizes.iter().cycle() {
        if at == data.len() {
            break;
        }
        let end = (at + size).min(data.len());
        starts.push(out.len());
        out.extend(format!("{:x}", end - at).as_bytes());
        out.extend(eol);
        out.extend(&data[at..end]);
        out.extend(eol);
        at = end;
    }
    starts.push(out.len());
    out.extend(b"0");
    out.extend(eol);
    out.extend(eol);
    (out, starts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A chunked body cut anywhere, or with a size line replaced, decodes to a prefix of its data
    /// (so no size line is text) and says it is damaged; intact, it decodes whole, quietly.
    #[test]
    fn damaged_chunked_bodies_give_a_prefix_of_their_data(
        data in prop::collection::vec(prop_oneof![Just(b'a'), Just(b'\n'), Just(b'<'), Just(b'8'), Just(b'\r'), any::<u8>()], 1..300),
        sizes in prop::collection::vec(1usize..80, 1..5),
        lf in any::<bool>(),
        cut in any::<Index>(),
        bad in prop::option::of((any::<Index>(), prop_oneof![Just("zz"), Just("-1"), Just(""), Just("8 b"), Just("ffffffffffffffffff")])),
    ) {
        let (mut body, starts) = chunk_encode(&data, &sizes, lf);
        let whole = body.len();
        let mut damaged = false;
        if let Some((which, garbage)) = bad {
            let which = which.index(starts.len() - 1);
            // A first line that is empty or holds words is a body stored de-chunked: kept as it is.
            prop_assume!(which > 0 || !matches!(garbage, "" | "8 b"));
            let start = starts[which];
            let end = start + body[start..].iter().position(|b| *b == b'\r' || *b == b'\n').unwrap();
            body.splice(start..end, garbage.bytes());
            damaged = true;
        }
        // Cut anywhere up to the last chunk's size line (included), or not at all.
        let last = *starts.last().unwrap() + 1;
        let keep = if cut.index(4) == 0 { body.len() } else { cut.index(last.min(body.len()) + 1) };
        damaged |= keep < body.len() - (whole - last);
        body.truncate(keep);
        let mut payload = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        payload.extend(&body);
        let parts = http_response_parts(&payload).unwrap();
        prop_assert!(data.starts_with(&parts.body), "{:?} is not a prefix of {:?}", parts.body, data);
        prop_assert_eq!(parts.chunk_damage.is_some(), damaged, "{:?}", parts.chunk_damage);
        if !damaged {
            prop_assert_eq!(&parts.body[..], &data[..]);
        }
    }
}

/// A response whose chunked body is framed as `size_line` says for each chunk's size.
fn chunked_response(page: &str, sizes: &[usize], size_line: impl Fn(usize) -> String) -> Vec<u8> {
    let mut body = Vec::new();
    let mut rest = page.as_bytes();
    for size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, after) = rest.split_at((*size).min(rest.len()));
        body.extend(size_line(chunk.len()).into_bytes());
        body.extend(chunk);
        body.extend(b"\r\n");
        rest = after;
    }
    body.extend(size_line(0).into_bytes());
    body.extend(b"Expires: never\r\n\r\n");
    let mut http =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    http.extend(body);
    record(0, &http)
}

/// Two valid framings leaked their chunk-size lines into the text: a size with more than 64
/// leading zeros, and an extension that makes the first line longer than 80 bytes.
#[test]
fn chunk_sizes_with_leading_zeros_or_long_extensions_never_reach_the_text() {
    let page = "<html><body><p>The river restoration plan was approved by the council on Tuesday evening, and the work begins in spring.</p></body></html>";
    let zeros = "0".repeat(70);
    let long = "v".repeat(100);
    // Each chunk-size line: what comes before the size, and after it.
    let framings = [
        ("leading zeros", zeros.as_str(), "\r\n".to_string()),
        ("a long extension", "", format!(";name=\"{long}\"\r\n")),
        (
            "white space and extensions",
            "",
            " \t; a = b ;c=\"d;<e>\"\r\n".into(),
        ),
        ("LF lines", "00", "\n".into()),
    ];
    for (what, before, after) in &framings {
        let warc = chunked_response(page, &[40, 17], |n| format!("{before}{n:x}{after}"));
        let out = crate::common::ppl_filter(&["--format", "json"], &warc);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{what}: {}",
            crate::common::stderr(&out)
        );
        let object: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            object["text"],
            "The river restoration plan was approved by the council on Tuesday evening, and the work begins in spring.",
            "{what}"
        );
    }
}
