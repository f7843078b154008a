//! Where a scenario field is written in its TOML file, so an error found in
//! the engine (which sees data, not text) can point at the line.

use toml_edit::{ImDocument, Item};

/// One step of a field path: a key or an array index.
#[derive(Debug, PartialEq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Splits `flows[1].params.beta` into `flows`, `1`, `params`, `beta`.
/// `None` for a path that is not of that form.
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while let Some(tail) = rest.strip_prefix('[') {
            let end = tail.find(']')?;
            out.push(Step::Index(tail[..end].parse().ok()?));
            rest = &tail[end + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// The 1-based line where the deepest written part of `path` starts in
/// `text`; `None` when the text is not TOML or nothing of the path is written.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let doc = ImDocument::parse(text).ok()?;
    let mut item: &Item = doc.as_item();
    let mut offset = None;
    for step in steps(path)? {
        let (next, key_span) = match step {
            Step::Key(k) => {
                let table = item.as_table_like()?;
                match table.get_key_value(k) {
                    Some((key, value)) => (value, key.span()),
                    None => break,
                }
            }
            Step::Index(i) => match item.get(i) {
                Some(value) => (value, None),
                None => break,
            },
        };
        offset = key_span.or_else(|| next.span()).map(|r| r.start).or(offset);
        item = next;
    }
    offset.map(|at| text[..at].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "duration_s = 10\n\n[topology]\nkind = \"dumbbell\"\nbottleneck = { rate_mbps = 100, delay_ms = \"ten\" }\n\n[[flows]]\nalgorithm = \"reno\"\n\n[[flows]]\nalgorithm = \"cubic\"\nparams.beta = 2\n";

    #[test]
    fn paths_split_into_keys_and_indices() {
        assert_eq!(
            steps("flows[1].params.beta").unwrap(),
            vec![
                Step::Key("flows"),
                Step::Index(1),
                Step::Key("params"),
                Step::Key("beta")
            ]
        );
        assert!(steps("flows[x]").is_none());
    }

    #[test]
    fn a_field_points_at_its_line() {
        assert_eq!(line_of(TEXT, "duration_s"), Some(1));
        assert_eq!(line_of(TEXT, "topology.bottleneck.delay_ms"), Some(5));
        assert_eq!(line_of(TEXT, "flows[1].algorithm"), Some(11));
        assert_eq!(line_of(TEXT, "flows[1].params.beta"), Some(12));
    }

    #[test]
    fn an_unwritten_field_points_at_its_nearest_written_ancestor() {
        assert_eq!(line_of(TEXT, "flows[1].rtt_ms"), Some(10));
        assert_eq!(line_of(TEXT, "seed"), None);
        assert_eq!(line_of("not = [toml", "seed"), None);
    }
}
