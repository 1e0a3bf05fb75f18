#!/usr/bin/env python3
"""Writes the systematic hostile-input families for catalogs and provider imports (issue 7):

  crates/gpuplan/tests/hostile/catalog-gen.toml  every catalog field x every bad value
  crates/gpuplan/tests/hostile/import-gen.toml   every numeric provider field x every bad value

Run from the repository root: python3 tools/gen_hostile_catalog.py. Commit the output; edit this
script (not the output) to change the cases. Case names avoid the words the harness reads as
non-numbers (it also checks each case's own paths), so values are named, not quoted.
"""
import copy
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates/gpuplan/tests/hostile")
FIX = os.path.join(ROOT, "crates/gpuplan-core/tests/fixtures")

GPU = """[[gpu]]
id = "rtx4090"
name = "RTX 4090"
vendor = "nvidia"
memory_gib = 24
memory_bandwidth_gbs = 1008
tflops = { bf16 = 165, fp16 = 165 }
intra_link = "pcie4"
stack = "cuda"
consumer = true
source = "datasheet"
as_of = "2026-01"
confidence = "likely"
"""

INST = """[[instance]]
id = "x.1"
provider = "alibaba"
family = "x"
gpu = "a10"
gpu_count = 1
gpu_memory_gib = 24
vcpu = 8
ram_gib = 32
rdma = "none"
source = "quote"
as_of = "2026-11"
confidence = "likely"
"""

PRICE = """[[price]]
instance = "x.1"
provider = "alibaba"
region = "cn-shanghai"
billing = "on_demand"
cny = 5
kind = "user"
as_of = "2026-11"
source = "quote"
"""

STORAGE = """[[storage]]
id = "s.1"
provider = "alibaba"
name = "Disk"
kind = "block"
throughput_max_mbs = 350
throughput_base_mbs = 120
throughput_per_gib_mbs = 0.5
price_cny_per_gib_month = 1
source = "doc"
as_of = "2026-01"
confidence = "likely"
"""

# TOML value -> a name safe for case names.
NAMES = {
    "nan": "notanumber", "-nan": "negnotanumber", "inf": "posinfinite", "-inf": "neginfinite",
    "-1": "minus1", "0": "zero", "-4": "minus4", "1000": "thousand", "65": "sixtyfive",
    "2.5": "twoandahalf", "1.5": "oneandahalf", "24576": "mib", "40000": "fortythousand",
    "100000": "hundredthousand", "1e6": "million", "1e12": "trillion", "1e308": "huge",
    "-24": "minus24", "-32": "minus32", "-5": "minus5", "-0.5": "minushalf", "2000": "twothousand",
    '"8"': "string", '"24"': "string", '"5"': "string", "true": "boolean", "[1]": "array",
    '""': "empty", '" "': "blank", '"sure"': "word", '"maybe"': "word", '"2026"': "yearonly",
    '"yesterday"': "word", '"aws"': "word", '"fast"': "word", '"hourly"': "word",
    '"free"': "word", '"pcie9"': "word", '"a11"': "unknownid", '"no.such"': "unknownid",
    '"huawei"': "otherprovider", "{}": "table",
}


def name(v):
    return NAMES[v]


def set_field(row, field, value):
    """Replace `field = ...` in a row, or append it."""
    lines = row.splitlines()
    for i, l in enumerate(lines):
        if l.split("=")[0].strip() == field:
            lines[i] = f"{field} = {value}"
            return "\n".join(lines) + "\n"
    return row + f"{field} = {value}\n"


def q(s):
    return json.dumps(s, ensure_ascii=True)


def case(out, name_, args, exit_, stderr=None, stdout=None, files=None):
    out.append(f"[[case]]\nname = {q(name_)}\nargs = {json.dumps(args)}\nexit = {exit_}\n")
    if stderr:
        out.append(f"stderr = {q(stderr)}\n")
    if stdout:
        out.append(f"stdout = {q(stdout)}\n")
    if files:
        inner = ", ".join(f"{q(k)} = {q(v)}" for k, v in files.items())
        out.append(f"files = {{ {inner} }}\n")
    out.append("\n")


TYPE_ERRORS = {'"8"', '"24"', '"5"', "true", "[1]", "{}"}

# (table, base text, label in findings, field, bad values, how findings name the row)
FAMILIES = [
    ("gpu", GPU, 'gpu "rtx4090"', "memory_gib", ["nan", "inf", "-inf", "-24", "0", "24576", '"24"', "true"]),
    ("gpu", GPU, 'gpu "rtx4090"', "visible_memory_gib", ["nan", "-1", "0"]),
    ("gpu", GPU, 'gpu "rtx4090"', "memory_bandwidth_gbs", ["nan", "inf", "0", "-1", '"8"']),
    ("gpu", GPU, 'gpu "rtx4090"', "intra_link_gbs", ["nan", "0", "-1"]),
    ("gpu", GPU, 'gpu "rtx4090"', "tdp_w", ["nan", "-1", "0"]),
    ("gpu", GPU, 'gpu "rtx4090"', "confidence", ['"sure"']),
    ("instance", INST, 'instance "x.1"', "gpu_count", ["1000", "inf", "nan", "-1", "0", "2.5", "65", "1e308", '"8"']),
    ("instance", INST, 'instance "x.1"', "gpu_memory_gib", ["nan", "inf", "-24", "0", "24576"]),
    ("instance", INST, 'instance "x.1"', "vcpu", ["-4", "0", "2000", "1.5", "nan", '"8"']),
    ("instance", INST, 'instance "x.1"', "ram_gib", ["nan", "-32", "0", "40000", "inf"]),
    ("instance", INST, 'instance "x.1"', "network_gbit", ["nan", "inf", "0", "-1", "100000"]),
    ("instance", INST, 'instance "x.1"', "rdma_gbit", ["nan", "-1"]),
    ("instance", INST, 'instance "x.1"', "local_nvme_gib", ["-1", "nan"]),
    ("instance", INST, 'instance "x.1"', "gpu", ['""', '"a11"']),
    ("instance", INST, 'instance "x.1"', "provider", ['"aws"']),
    ("instance", INST, 'instance "x.1"', "rdma", ['"fast"']),
    ("instance", INST, 'instance "x.1"', "confidence", ['"maybe"']),
    ("price", INST + PRICE, 'price[0] "x.1" cn-shanghai on-demand', "cny", ["nan", "inf", "-inf", "-5", "0", "1e12", '"5"']),
    ("price", INST + PRICE, 'price[0] "x.1" cn-shanghai on-demand', "region", ['""']),
    ("price", INST + PRICE, 'price[0] "x.1" cn-shanghai on-demand', "provider", ['"huawei"']),
    ("price", INST + PRICE, 'price[0] "x.1"', "billing", ['"hourly"']),
    ("price", INST + PRICE, 'price[0] "x.1"', "kind", ['"free"']),
    ("storage", STORAGE, 'storage "s.1"', "throughput_max_mbs", ["0", "-1", "nan", "inf"]),
    ("storage", STORAGE, 'storage "s.1"', "throughput_base_mbs", ["-1", "nan"]),
    ("storage", STORAGE, 'storage "s.1"', "throughput_per_gib_mbs", ["-0.5", "nan", "inf"]),
    ("storage", STORAGE, 'storage "s.1"', "throughput_floor_mbs", ["nan", "-1"]),
    ("storage", STORAGE, 'storage "s.1"', "price_cny_per_gib_month", ["nan", "-1", "0", "inf"]),
    ("storage", STORAGE, 'storage "s.1"', "min_capacity_gib", ["nan", "0"]),
    ("storage", STORAGE, 'storage "s.1"', "iops_max", ["nan", "-1"]),
]


def row_location(label, field, value):
    # Type errors are reported while the row is deserialized: the row label, then the field.
    if value in TYPE_ERRORS or value in {'"pcie9"', '"aws"', '"fast"', '"hourly"', '"free"', '"sure"'} and field != "confidence":
        short = label.split(" cn-")[0] if label.startswith("price") else label
        return f"{short} {field}"
    if field in ("vcpu",) and value in {"-4", "1.5", "nan"}:
        return f"{label} {field}"
    if field == "region":
        return "on-demand region"
    if field == "provider" and label.startswith("price"):
        return "provider"
    if field == "gpu" and value == '"a11"':
        return f"{label} gpu"
    return f"{label} {field}"


def catalog_cases():
    out = ["# Generated by tools/gen_hostile_catalog.py: every catalog field x every bad value.\n",
           "# `catalog validate FILE` reports the row and field (exit 1); `catalog instances` with\n",
           "# the same file in the config directory skips the row with a warning (exit 0).\n\n"]
    for table, base, label, field, values in FAMILIES:
        row = base
        for v in values:
            if table == "price":
                text = INST + set_field(PRICE, field, v)
            else:
                text = set_field(row, field, v)
            loc = row_location(label, field, v)
            case(out, f"{table} {field} {name(v)}", ["catalog", "validate", "{dir}/c.toml"], 1,
                 stdout=loc, files={"c.toml": text})
            if table in ("instance", "price"):
                case(out, f"{table} {field} {name(v)} in config dir", ["catalog", "instances", "--format", "json"], 0,
                     stderr="row skipped", files={"cfg/catalog/x.toml": text})
    # tflops: each precision x each bad value.
    for prec in ["bf16", "fp16", "fp32", "fp8", "int8"]:
        for v in ["-1", "nan", "inf", "1e6"]:
            text = GPU.replace("tflops = { bf16 = 165, fp16 = 165 }",
                               "tflops = { bf16 = 165, fp16 = 165 }".replace(f"{prec} = 165", f"{prec} = {v}")
                               if prec in ("bf16", "fp16") else f"tflops = {{ bf16 = 165, fp16 = 165, {prec} = {v} }}")
            case(out, f"gpu tflops {prec} {name(v)}", ["catalog", "validate", "{dir}/c.toml"], 1,
                 stdout=f'gpu "rtx4090" tflops.{prec}', files={"c.toml": text})
    # Empty and blank ids, and empty provenance, in every table.
    for table, base, idfield in [("gpu", GPU, "id"), ("instance", INST, "id"), ("storage", STORAGE, "id")]:
        for v in ['""', '" "']:
            text = set_field(base, idfield, v)
            shown = json.loads(v)
            case(out, f"{table} id {name(v)}", ["catalog", "validate", "{dir}/c.toml"], 1,
                 stdout=f'{table} {json.dumps(shown)} id', files={"c.toml": text})
        case(out, f"{table} source empty", ["catalog", "validate", "{dir}/c.toml"], 1,
             stdout="non-empty source", files={"c.toml": set_field(base, "source", '""')})
        case(out, f"{table} as_of yearonly", ["catalog", "validate", "{dir}/c.toml"], 1,
             stdout="as_of date", files={"c.toml": set_field(base, "as_of", '"2026"')})
        case(out, f"{table} unknown field", ["catalog", "validate", "{dir}/c.toml"], 1,
             stdout="unknown field", files={"c.toml": base + "colour = \"red\"\n"})
        case(out, f"{table} duplicate id", ["catalog", "validate", "{dir}/c.toml"], 1,
             stdout="duplicate", files={"c.toml": base + base})
    return "".join(out)


def fixture(name_):
    with open(os.path.join(FIX, name_)) as f:
        return json.load(f)


# JSON values a provider field may hold, with safe names.
JBAD = [(-1, "minus1"), (0, "zero"), ("NaN", "notanumberstring"), ("inf", "infinitestring"),
        ("-Infinity", "neginfinitestring"), (1e300, "huge"), (2.5, "fraction"), ("abc", "word"),
        (True, "boolean")]


def jdump(v):
    return json.dumps(v, indent=1)


def import_cases():
    out = ["# Generated by tools/gen_hostile_catalog.py: every numeric provider field x every bad value.\n",
           "# A bad row is left out with its JSON path (exit 0 when valid rows remain, 2 when none do);\n",
           "# the file written holds only valid rows.\n\n"]
    imp = lambda prov, extra=(): ["catalog", "import", prov, "{dir}/r.json", "--region", "cn-shanghai", *extra]
    # Alibaba DescribeInstanceTypes: row 0 is good, row 1 gets the bad value.
    base = fixture("alibaba-describe-instance-types-page1.json")
    good = base["InstanceTypes"]["InstanceType"][0]
    for field in ["GPUAmount", "CpuCoreCount", "MemorySize", "GPUMemorySize", "InstanceBandwidthRx"]:
        for v, vn in JBAD:
            if field != "GPUAmount" and v == 0:
                continue  # zero means "not reported" for these
            if field in ("MemorySize", "GPUMemorySize", "InstanceBandwidthRx") and v in (2.5, 1e300):
                continue  # plausible values (1e300 Kbit/s is caught by validation below)
            bad = copy.deepcopy(good)
            bad["InstanceTypeId"] = "ecs.bad-row"
            bad[field] = v
            doc = {"InstanceTypes": {"InstanceType": [good, bad]}}
            path = f"$.InstanceTypes.InstanceType[1].{field}"
            case(out, f"alibaba {field} {vn}", imp("alibaba"), 0, stderr=path,
                 files={"r.json": jdump(doc)})
            if field == "GPUAmount":
                doc = {"InstanceTypes": {"InstanceType": [bad]}}
                case(out, f"alibaba {field} {vn} only row", imp("alibaba"), 2,
                     stderr="nothing imported", files={"r.json": jdump(doc)})
    # Alibaba spot prices.
    spot = fixture("alibaba-describe-spot-price-history.json")
    for v, vn in JBAD + [(None, "null")]:
        if v == 2.5:
            continue  # a valid price
        doc = copy.deepcopy(spot)
        doc["SpotPrices"]["SpotPriceType"][1]["SpotPrice"] = v
        doc["SpotPrices"]["SpotPriceType"][1]["ZoneId"] = "cn-beijing-a"
        # 1e300 is a number, caught by validation (not a plausible price): the row's path.
        path = "$.SpotPrices.SpotPriceType[1]" + ("" if v == 1e300 else ".SpotPrice")
        case(out, f"alibaba SpotPrice {vn}", imp("alibaba")[:4], 0, stderr=path,
             files={"r.json": jdump(doc)})
    # Alibaba DescribePrice.
    price = fixture("alibaba-describe-price.json")
    for v, vn in JBAD:
        if v == 2.5 or v == 1e300:
            continue
        doc = copy.deepcopy(price)
        doc["PriceInfo"]["Price"]["TradePrice"] = v
        case(out, f"alibaba TradePrice {vn}",
             imp("alibaba", ["--instance", "ecs.gn7i-c8g1.2xlarge", "--billing", "on-demand"]), 2,
             stderr="$.PriceInfo.Price.TradePrice", files={"r.json": jdump(doc)})
    # Huawei ListFlavors: flavor 0 good, flavor 1 bad.
    hw = fixture("huawei-list-flavors.json")
    good = hw["flavors"][1]
    for count, cn in [("0", "zero"), ("-4", "minus4"), ("nan", "notanumber"), ("inf", "infinite"),
                      ("2.5", "fraction"), ("lots", "word"), ("100", "hundred"), ("", "empty")]:
        bad = copy.deepcopy(good)
        bad["name"] = "p.bad"
        bad["os_extra_specs"]["pci_passthrough:alias"] = f"nvidia-t4:{count}"
        doc = {"flavors": [good, bad]}
        case(out, f"huawei alias count {cn}", imp("huawei"), 0,
             stderr="$.flavors[1].os_extra_specs.pci_passthrough:alias", files={"r.json": jdump(doc)})
    for field, where in [("vcpus", ""), ("ram", ""), ("quota:max_rate", "os_extra_specs")]:
        for v, vn in JBAD:
            if v == 0 and field == "quota:max_rate":
                continue
            if v in (2.5, 1e300) and field != "vcpus":
                continue
            bad = copy.deepcopy(good)
            bad["name"] = "p.bad"
            (bad[where] if where else bad)[field] = v
            doc = {"flavors": [good, bad]}
            path = f"$.flavors[1].{where + '.' if where else ''}{field}"
            case(out, f"huawei {field} {vn}", imp("huawei"), 0, stderr=path, files={"r.json": jdump(doc)})
    # Tencent DescribeZoneInstanceConfigInfos: quota 0 good, quota 1 bad.
    tc = fixture("tencent-describe-zone-instance-config-infos.json")
    good = tc["Response"]["InstanceTypeQuotaSet"][0]
    for field in ["GpuCount", "Cpu", "Memory", "InstanceBandwidth"]:
        for v, vn in JBAD + [(100, "hundred")]:
            if v == 0 or (v == 2.5 and field != "Cpu" and field != "GpuCount") or (v == 1e300 and field not in ("GpuCount", "Cpu")):
                continue
            if v == 100 and field != "GpuCount":
                continue
            bad = copy.deepcopy(good)
            bad["InstanceType"] = "GN7.BAD"
            bad[field] = v
            doc = {"Response": {"InstanceTypeQuotaSet": [good, bad]}}
            case(out, f"tencent {field} {vn}", imp("tencent"), 0,
                 stderr=f"$.Response.InstanceTypeQuotaSet[1].{field}", files={"r.json": jdump(doc)})
    for field in ["UnitPrice", "UnitPriceDiscount"]:
        for v, vn in JBAD:
            if v in (2.5, 1e300):
                continue
            bad = copy.deepcopy(good)
            bad["InstanceType"] = "GN7.BADPRICE"
            bad["Price"][field] = v
            doc = {"Response": {"InstanceTypeQuotaSet": [good, bad]}}
            case(out, f"tencent {field} {vn}", imp("tencent"), 0,
                 stderr=f"$.Response.InstanceTypeQuotaSet[1].Price.{field}", files={"r.json": jdump(doc)})
    return "".join(out)


def main():
    for fname, text in [("catalog-gen.toml", catalog_cases()), ("import-gen.toml", import_cases())]:
        with open(os.path.join(OUT, fname), "w") as f:
            f.write(text)
        print(fname, text.count("[[case]]"), "cases")


if __name__ == "__main__":
    main()
