//! Collective-communication environment (NCCL on NVIDIA, HCCL on Ascend) for the plan's
//! provider and inter-node link, from data/export/network-env.toml: documented values where a
//! source gives them, marked placeholders where none does.

use super::view::PlanView;
use serde::Deserialize;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../data/export/network-env.toml");

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Var {
    pub name: String,
    /// The documented value.
    pub value: Option<String>,
    /// What the user must set when no source documents the value.
    pub placeholder: Option<String>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub provider: String,
    pub link: String,
    pub library: String,
    pub source: String,
    pub vars: Vec<Var>,
}

#[derive(Deserialize)]
struct File {
    profile: Vec<Profile>,
}

fn profiles() -> &'static [Profile] {
    static P: OnceLock<Vec<Profile>> = OnceLock::new();
    P.get_or_init(|| {
        toml::from_str::<File>(TABLE)
            .map(|f| f.profile)
            .unwrap_or_default()
    })
}

/// The link key of the table: the instance's RDMA kind when the plan uses it, else `tcp`.
pub fn link_key(p: &PlanView) -> &'static str {
    match (p.inter_link.as_str(), p.rdma.as_str()) {
        ("erdma", _) => "erdma",
        ("rdma", "ib") => "ib",
        ("rdma", _) => "roce",
        _ => "tcp",
    }
}

/// The profile for a multi-node plan (`None` on one node: no inter-node traffic).
pub fn profile(p: &PlanView) -> Option<&'static Profile> {
    if p.nodes <= 1 {
        return None;
    }
    let library = if p.ascend() { "hccl" } else { "nccl" };
    let link = link_key(p);
    let matches = |pr: &&Profile, provider: &str| {
        pr.library == library && pr.provider == provider && (pr.link == link || pr.link == "*")
    };
    let all = profiles();
    all.iter()
        .find(|pr| matches(pr, &p.provider))
        .or_else(|| all.iter().find(|pr| matches(pr, "*")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_every_var_has_exactly_one_of_value_or_placeholder() {
        let all = profiles();
        assert!(all.len() >= 5, "{TABLE}");
        for pr in all {
            assert!(!pr.source.is_empty());
            for v in &pr.vars {
                assert!(
                    v.value.is_some() != v.placeholder.is_some(),
                    "{} in {}/{}",
                    v.name,
                    pr.provider,
                    pr.link
                );
                assert!(v
                    .name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()));
            }
        }
    }
}
