//! Issue 13: README.md and README.zh.md stay in step: the same `## ` sections in the same order,
//! the same commands in each section's `sh` blocks, and output samples that are real output (every
//! line of a `text` block appears, in order, in the terminal snapshot of the same language).

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/{name}")).unwrap()
}

/// (heading, fenced blocks as (language, body)) of each `## ` section; the text before the first
/// section is the section "".
fn sections(md: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = vec![(String::new(), Vec::new())];
    let mut fence: Option<(String, String)> = None;
    for line in md.lines() {
        if let Some((lang, body)) = &mut fence {
            if line.starts_with("```") {
                let block = (lang.clone(), body.clone());
                if let Some(s) = out.last_mut() {
                    s.1.push(block);
                }
                fence = None;
            } else {
                body.push_str(line);
                body.push('\n');
            }
        } else if let Some(lang) = line.strip_prefix("```") {
            fence = Some((lang.to_string(), String::new()));
        } else if let Some(h) = line.strip_prefix("## ") {
            out.push((h.to_string(), Vec::new()));
        }
    }
    out
}

/// The commands of a shell block (comments, which are in each README's language, left out).
fn commands(body: &str) -> Vec<&str> {
    body.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect()
}

#[test]
fn readmes_have_the_same_sections_and_commands() {
    let (en, zh) = (
        sections(&read("README.md")),
        sections(&read("README.zh.md")),
    );
    let names =
        |s: &[(String, Vec<(String, String)>)]| s.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(
        en.len(),
        zh.len(),
        "sections differ: {:?} vs {:?}",
        names(&en),
        names(&zh)
    );
    for ((he, be), (hz, bz)) in en.iter().zip(&zh) {
        let sh = |b: &[(String, String)]| {
            b.iter()
                .filter(|(l, _)| l == "sh")
                .map(|(_, body)| commands(body).join("\n"))
                .collect::<Vec<_>>()
        };
        assert_eq!(sh(be), sh(bz), "commands differ in `{he}` / `{hz}`");
        let texts = |b: &[(String, String)]| b.iter().filter(|(l, _)| l == "text").count();
        assert_eq!(
            texts(be),
            texts(bz),
            "output samples differ in `{he}` / `{hz}`"
        );
    }
    // The two commands at the top, exactly.
    let top = read("README.md");
    assert!(top.contains("cargo run --release -- plan --model Qwen2.5-7B --task lora --seq-len 2048 --tokens 1e8 --provider alibaba --deadline 24h --explain\n"));
    assert!(top.contains("\ncargo test --workspace\n"));
}

#[test]
fn output_samples_are_real_output() {
    for (readme, snap) in [
        ("README.md", "terminal__plan_en_80.snap"),
        ("README.zh.md", "terminal__plan_zh_80.snap"),
    ] {
        let snapshot = read(&format!("crates/gpuplan/tests/snapshots/{snap}"));
        let mut found = 0;
        for (_, blocks) in sections(&read(readme)) {
            for (_, body) in blocks.iter().filter(|(l, _)| l == "text") {
                let mut rest = snapshot.as_str();
                for line in body.lines() {
                    let at = rest.find(line).unwrap_or_else(|| {
                        panic!("{readme}: `{line}` is not in {snap} (in order)")
                    });
                    rest = &rest[at + line.len()..];
                }
                found += 1;
            }
        }
        assert!(found > 0, "{readme} has no output sample");
    }
}
