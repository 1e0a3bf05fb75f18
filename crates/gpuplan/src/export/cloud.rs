//! The provider CLI command that creates the plan's machines, dry-run by default (`DRY_RUN=false`
//! creates). Parameter names are the providers' API names, checked by tests/export.rs against the
//! vendored request models: Alibaba ECS RunInstances (alibabacloud_ecs20140526 7.11.8), Tencent
//! CVM RunInstances (tencentcloud-sdk-python-cvm 3.1.178), Huawei ECS CreateServers (Huawei's API
//! definition, crate huawei-cloud-api-definitions-ECS). Image, zone, network and placement group
//! are the user's: they are required variables, never guessed.

use super::script;
use super::view::PlanView;
use super::File;
use gpuplan_core::catalog::Provider;
use gpuplan_core::plan::periods::{self, Unit};

pub fn file(p: &PlanView) -> File {
    let body = match p.provider.as_str() {
        "alibaba" => alibaba(p),
        "tencent" => tencent(p),
        "huawei" if p.family.starts_with("modelarts") => modelarts(p),
        "huawei" => huawei(p),
        other => format!("echo 'no instance-creation command for provider {other}' >&2\nexit 2\n"),
    };
    File::new(
        "cloud/create-instances.sh",
        script(
            p,
            &format!(
                "Create {} × {} in {}: dry run unless DRY_RUN=false.",
                p.nodes,
                p.instance,
                p.region.as_deref().unwrap_or("REGION")
            ),
            &body,
        ),
    )
}

/// A batch (training) job on pay-as-you-go or spot is released after the planned hours.
fn releases(p: &PlanView) -> bool {
    p.train.is_some() && p.billing.as_deref() != Some("monthly")
}

/// Months the create command subscribes per node: the plan's subscription, a period the
/// provider's API accepts (checked when the plan was read, view.rs) — the first of its
/// consecutive periods where the plan buys several.
fn months(p: &PlanView) -> u64 {
    p.subscription
        .as_ref()
        .map_or(1, |s| s.parts.first().map_or(s.months, |(m, _)| *m))
}

/// The API's unit and number for the subscription (Huawei: `year` for 12, 24, 36 months).
fn period(p: &PlanView, provider: Provider) -> (Unit, u64) {
    let m = months(p);
    periods::of(provider)
        .and_then(|ps| ps.spell(m))
        .unwrap_or((Unit::Month, m))
}

/// What the subscription buys and, for a mixed billing, the remainder the plan priced after
/// it (hours, days, mode, CNY), so that the script and the plan's total agree.
fn subscription_line(p: &PlanView) -> String {
    let Some(s) = &p.subscription else {
        return String::new();
    };
    let m = s.months;
    let parts = s
        .parts
        .iter()
        .map(|(m, k)| format!("{k} × {m}"))
        .collect::<Vec<_>>()
        .join(" + ");
    let several = s.parts.len() > 1 || s.parts.first().is_some_and(|(_, k)| *k > 1);
    let renewals = if several {
        format!(
            " The {m} months are consecutive periods {parts}, longer than any one period the provider accepts: this command buys the first {}-month period; renew each instance for the next as each one ends (renewal is not scripted).",
            months(p)
        )
    } else {
        String::new()
    };
    match &s.rest {
        Some(r) => format!(
            "# Mixed billing, as the plan priced it: {m} month(s) subscribed here per node (¥{:.0} for {} node(s)), then the remaining {:.0} h ({:.1} d) {} at ¥{:.0}: release or switch the instances when the subscription ends (the plan's cost table has the total).{renewals}\n",
            r.months_cny,
            p.nodes,
            r.hours,
            r.hours / 24.0,
            r.billing.replace('_', "-"),
            r.cny
        ),
        None if several => format!(
            "# Subscription: the plan prices {m} months per node, longer than any one period the provider accepts, as consecutive periods {parts}: this command buys the first {}-month period; renew each instance for the next period as each one ends (renewal is not scripted) so that the job's {:.0} h ({:.1} years) stay covered at the price the plan used.\n",
            months(p),
            p.hours,
            p.hours / 8760.0
        ),
        None if (m as f64) * 730.0 > p.hours + 730.0 => format!(
            "# Subscription: {m} months per node, the shortest period the provider accepts that covers the job's {:.0} h ({:.1} months).\n",
            p.hours,
            p.hours / 730.0
        ),
        None => String::new(),
    }
}

fn region_line(p: &PlanView, var: &str) -> String {
    match &p.region {
        Some(r) => format!("{var}=\"${{{var}:-{r}}}\"\n"),
        None => format!("{var}=\"${{{var}:?set {var}: the plan has no region (pass --region to gpuplan plan)}}\"\n"),
    }
}

/// Auto-release margin over the plan's wall-clock estimate. A policy, not a measurement: an early
/// release loses the run (and its last checkpoint interval), an idle hour costs one hour, and the
/// out-of-sample training-time error is 10–25% with a tail beyond (docs/accuracy.md), so the
/// release errs long. The user stops the machines when the job ends; HOURS overrides.
const RELEASE_MARGIN: f64 = 1.5;
/// Hours added for set-up before the job starts (image pull, data staging, rendezvous).
const RELEASE_SETUP_HOURS: f64 = 1.0;

/// Hours until auto-release: the estimate × RELEASE_MARGIN + RELEASE_SETUP_HOURS, rounded up.
fn release_hours(plan_hours: f64) -> u64 {
    (plan_hours * RELEASE_MARGIN + RELEASE_SETUP_HOURS).ceil() as u64
}

/// `RELEASE_AT`: now + release_hours, in UTC ISO 8601.
fn release_at(p: &PlanView) -> String {
    format!(
        "# Auto-release after {} h: the plan's wall-clock estimate ({:.1} h) × {RELEASE_MARGIN} + {RELEASE_SETUP_HOURS} h set-up. Set HOURS to change it.\nHOURS=\"${{HOURS:-{}}}\"\nRELEASE_AT=\"$(date -u -d \"+$HOURS hours\" +%Y-%m-%dT%H:%M:%SZ)\"\n",
        release_hours(p.hours),
        p.hours,
        release_hours(p.hours)
    )
}

fn alibaba(p: &PlanView) -> String {
    let mut s = region_line(p, "REGION_ID");
    s.push_str(&format!(
        "ZONE_ID=\"${{ZONE_ID:?set ZONE_ID to a zone of $REGION_ID that sells {t}}}\"\nIMAGE_ID=\"${{IMAGE_ID:?set IMAGE_ID to a GPU image: aliyun ecs DescribeImages --RegionId $REGION_ID --InstanceType {t} --ImageOwnerAlias system}}\"\nSECURITY_GROUP_ID=\"${{SECURITY_GROUP_ID:?set SECURITY_GROUP_ID}}\"\nVSWITCH_ID=\"${{VSWITCH_ID:?set VSWITCH_ID (a vSwitch in ZONE_ID)}}\"\n",
        t = p.instance
    ));
    let mut args = vec![
        "--RegionId \"$REGION_ID\"".to_string(),
        "--ZoneId \"$ZONE_ID\"".into(),
        format!("--InstanceType {}", p.instance),
        "--ImageId \"$IMAGE_ID\"".into(),
        format!("--Amount {}", p.nodes),
        format!("--MinAmount {}", p.nodes),
        "--SecurityGroupId \"$SECURITY_GROUP_ID\"".into(),
        "--VSwitchId \"$VSWITCH_ID\"".into(),
        format!("--InstanceName {}", p.slug()),
    ];
    s.push_str(&subscription_line(p));
    match p.billing.as_deref() {
        Some("monthly") => args.extend([
            "--InstanceChargeType PrePaid".into(),
            format!("--Period {}", period(p, Provider::Alibaba).1),
            "--PeriodUnit Month".into(),
        ]),
        Some("spot") => args.extend([
            "--InstanceChargeType PostPaid".into(),
            "--SpotStrategy SpotAsPriceGo".into(),
        ]),
        _ => args.push("--InstanceChargeType PostPaid".into()),
    }
    if releases(p) {
        s.push_str(&release_at(p));
        args.push("--AutoReleaseTime \"$RELEASE_AT\"".into());
    }
    s.push_str("# A deployment set keeps the nodes close (optional): DEPLOYMENT_SET_ID=ds-…\nDEPLOYMENT_SET=()\n[ -n \"${DEPLOYMENT_SET_ID:-}\" ] && DEPLOYMENT_SET=(--DeploymentSetId \"$DEPLOYMENT_SET_ID\")\n");
    args.push(optional_array("DEPLOYMENT_SET"));
    args.push("--DryRun \"${DRY_RUN:-true}\"".into());
    command("aliyun ecs RunInstances", &args, &mut s);
    s
}

fn tencent(p: &PlanView) -> String {
    let mut s = region_line(p, "REGION");
    s.push_str(&format!(
        "ZONE=\"${{ZONE:?set ZONE to a zone of $REGION that sells {t}}}\"\nIMAGE_ID=\"${{IMAGE_ID:?set IMAGE_ID to a GPU image: tccli cvm DescribeImages --region $REGION --InstanceType {t}}}\"\nVPC_ID=\"${{VPC_ID:?set VPC_ID}}\"\nSUBNET_ID=\"${{SUBNET_ID:?set SUBNET_ID (a subnet in ZONE)}}\"\n",
        t = p.instance
    ));
    s.push_str("PLACEMENT=$(printf '{\"Zone\":\"%s\"}' \"$ZONE\")\nVPC=$(printf '{\"VpcId\":\"%s\",\"SubnetId\":\"%s\"}' \"$VPC_ID\" \"$SUBNET_ID\")\n");
    let mut args = vec![
        "--region \"$REGION\"".to_string(),
        "--Placement \"$PLACEMENT\"".into(),
        format!("--InstanceType {}", p.instance),
        "--ImageId \"$IMAGE_ID\"".into(),
        format!("--InstanceCount {}", p.nodes),
        "--VirtualPrivateCloud \"$VPC\"".into(),
        format!("--InstanceName {}", p.slug()),
    ];
    s.push_str(&subscription_line(p));
    match p.billing.as_deref() {
        Some("monthly") => {
            s.push_str(&format!(
                "PREPAID=$(printf '{{\"Period\":%s}}' {})\n",
                period(p, Provider::Tencent).1
            ));
            args.extend([
                "--InstanceChargeType PREPAID".into(),
                "--InstanceChargePrepaid \"$PREPAID\"".into(),
            ]);
        }
        Some("spot") => {
            s.push_str("MARKET=$(printf '{\"MarketType\":\"%s\"}' spot)\n");
            args.extend([
                "--InstanceChargeType SPOTPAID".into(),
                "--InstanceMarketOptions \"$MARKET\"".into(),
            ]);
        }
        _ => args.push("--InstanceChargeType POSTPAID_BY_HOUR".into()),
    }
    if releases(p) {
        s.push_str(&release_at(p));
        s.push_str("TIMER=$(printf '{\"TimerAction\":\"%s\",\"ActionTime\":\"%s\"}' TerminateInstances \"$RELEASE_AT\")\n");
        args.push("--ActionTimer \"$TIMER\"".into());
    }
    s.push_str("# A placement group (optional): PLACEMENT_GROUP_ID=ps-…\nGROUP=()\n[ -n \"${PLACEMENT_GROUP_ID:-}\" ] && GROUP=(--DisasterRecoverGroupIds \"[\\\"$PLACEMENT_GROUP_ID\\\"]\")\n");
    args.push(optional_array("GROUP"));
    args.push("--DryRun \"${DRY_RUN:-true}\"".into());
    command("tccli cvm RunInstances", &args, &mut s);
    s
}

fn huawei(p: &PlanView) -> String {
    let mut s = region_line(p, "REGION");
    s.push_str(&format!(
        "PROJECT_ID=\"${{PROJECT_ID:?set PROJECT_ID (IAM project of $REGION)}}\"\nAZ=\"${{AZ:?set AZ to an availability zone of $REGION that sells {t}}}\"\nIMAGE_ID=\"${{IMAGE_ID:?set IMAGE_ID to a public GPU image id of $REGION (IMS console)}}\"\nVPC_ID=\"${{VPC_ID:?set VPC_ID}}\"\nSUBNET_ID=\"${{SUBNET_ID:?set SUBNET_ID}}\"\n",
        t = p.instance
    ));
    let mut args = vec![
        "--cli-region=\"$REGION\"".to_string(),
        "--project_id=\"$PROJECT_ID\"".into(),
        format!("--server.flavorRef={}", p.instance),
        "--server.imageRef=\"$IMAGE_ID\"".into(),
        format!("--server.name={}", p.slug()),
        format!("--server.count={}", p.nodes),
        "--server.availability_zone=\"$AZ\"".into(),
        "--server.vpcid=\"$VPC_ID\"".into(),
        "--server.nics.1.subnet_id=\"$SUBNET_ID\"".into(),
        "--server.root_volume.volumetype=SSD".into(),
    ];
    s.push_str(&subscription_line(p));
    match p.billing.as_deref() {
        Some("monthly") => {
            let (unit, n) = period(p, Provider::Huawei);
            let unit = if unit == Unit::Year { "year" } else { "month" };
            args.extend([
                "--server.extendparam.chargingMode=prePaid".into(),
                format!("--server.extendparam.periodType={unit}"),
                format!("--server.extendparam.periodNum={n}"),
            ])
        }
        Some("spot") => args.extend([
            "--server.extendparam.chargingMode=postPaid".into(),
            "--server.extendparam.marketType=spot".into(),
        ]),
        _ => args.push("--server.extendparam.chargingMode=postPaid".into()),
    }
    if releases(p) {
        s.push_str(&release_at(p));
        args.push("--server.auto_terminate_time=\"$RELEASE_AT\"".into());
    }
    s.push_str("# A server group keeps the nodes apart or together (optional): SERVER_GROUP_ID=…\nGROUP=()\n[ -n \"${SERVER_GROUP_ID:-}\" ] && GROUP=(--server.os:scheduler_hints.group=\"$SERVER_GROUP_ID\")\n");
    args.push(optional_array("GROUP"));
    args.push("--dry_run=\"${DRY_RUN:-true}\"".into());
    command("hcloud ECS CreateServers", &args, &mut s);
    s
}

fn modelarts(p: &PlanView) -> String {
    format!(
        "# {} is a ModelArts flavor, not an ECS flavor: ModelArts resource pools and training jobs\n# are created in the ModelArts console or its API, which this bundle does not drive.\necho 'create a ModelArts resource pool of {} × {} in the ModelArts console' >&2\nexit 2\n",
        p.instance, p.nodes, p.instance
    )
}

/// An optional argument array on the command line: `${A[@]+"${A[@]}"}` expands an empty array to
/// nothing under `set -u` in every bash, where `"${A[@]}"` stops bash < 4.4 with "A[@]: unbound
/// variable" — macOS's /bin/bash 3.2 and CentOS 7's 4.2 (audit r8 #4; bash 4.4 CHANGES: "Using
/// ${a[@]} or ${a[*]} with an array without any assigned elements when the nounset option is
/// enabled no longer throws an unbound variable error").
fn optional_array(name: &str) -> String {
    format!("${{{name}[@]+\"${{{name}[@]}}\"}}")
}

fn command(cmd: &str, args: &[String], s: &mut String) {
    s.push_str(cmd);
    for a in args {
        s.push_str(&format!(" \\\n  {a}"));
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::release_hours;

    #[test]
    fn auto_release_leaves_a_margin_over_the_estimate() {
        assert_eq!(release_hours(10.0), 16);
        assert_eq!(release_hours(0.2), 2);
        for h in [0.1, 1.0, 7.3, 100.0] {
            assert!(release_hours(h) as f64 >= h * 1.5);
        }
    }
}
