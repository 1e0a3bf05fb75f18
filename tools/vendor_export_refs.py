#!/usr/bin/env python3
"""Vendor the reference lists the export tests validate against (crates/gpuplan/tests/schemas/).

Each list is extracted from the project's own source or documentation, never typed by hand:
  vllm-serve-args.json      every "--flag" string passed to add_argument in vllm/engine/arg_utils.py,
                            and the values of --kv-cache-dtype (config/cache.py CacheDType),
                            --quantization (model_executor/layers/quantization QuantizationMethods)
                            and --dtype (config/model.py ModelDType)
                            (vLLM wheel; `vllm serve` takes the engine args plus the server flags
                            of vllm/entrypoints/openai/cli_args.py or entrypoints/common/cli_args.py)
  sglang-server-args.json   every "--flag" in sglang/srt/server_args.py (sglang wheel), and the
                            choices of --kv-cache-dtype, --dtype and --quantization (QUANTIZATION_CHOICES)
  megatron-args.json        every '--flag' in megatron/training/arguments.py (Megatron-LM tag)
  deepspeed-config-keys.json  DeepSpeed docs/_pages/config-json.md: `<i>**key**</i>: [type]` and
                            `***key***: [type]` headings (documented key and type) plus every key of
                            the doc's ```json examples (documented key, type not stated)
  accelerate-config-keys.json accelerate ClusterConfig dataclass fields (commands/config/config_args.py,
                            with BaseConfig) and the --fsdp_* flags of accelerate/commands/launch.py
                            (`accelerate launch` turns each fsdp_config key into that flag)
  alibaba-runinstances.json  the request keys RunInstancesRequest.to_map() writes
                            (alibabacloud_ecs20140526 wheel, models/_run_instances_request.py)
  tencent-runinstances.json  the attributes of RunInstancesRequest and the nested models the
                            export uses (tencentcloud-sdk-python-cvm wheel, cvm/v20170312/models.py)
  huawei-createservers.schema.json  CreateServersRequestBody of Huawei's ECS API definition
                            (crate huawei-cloud-api-definitions-ECS, src/CreateServers.json) as a
                            JSON Schema: its `definitions`, rooted at the request body
  skypilot-task.schema.json  sky.utils.schemas.get_task_schema(), with `resources` and `service`
                            replaced by get_resources_schema() and get_service_schema() (the task
                            schema leaves them bare objects; SkyPilot validates them with those);
                            needs `pip install skypilot`
  litgpt-args.json          LitGPT's CLI (litgpt/__main__.py subcommands): the parameters of `setup()`
                            in litgpt/finetune/lora.py, finetune/full.py and pretrain.py (config
                            keys of `--config FILE`), the fields of TrainArgs (litgpt/args.py, the
                            `train:` section) and the `quantize` choices of finetune/lora.py
  torchrun-args.json        not generated here: transcribed from torch/distributed/run.py (see _source)
  k8s-<kind>.schema.json    the Kubernetes Python client's pydantic models (kubernetes 37.0.2,
                            OpenAPI release-1.37): V1Deployment, V1Service,
                            V2HorizontalPodAutoscaler .model_json_schema(by_alias=True), with the
                            `description` texts dropped (size); needs `pip install kubernetes`
Usage: vendor_export_refs.py KIND SOURCE_FILE... --meta 'version/commit/licence' > OUT.json
"""
import json, os, re, sys

def flags(paths, quote):
    out = set()
    for p in paths:
        src = open(p, encoding="utf-8").read()
        out |= set(re.findall(quote + r"(--[a-z0-9][a-z0-9_-]*)" + quote, src))
    return sorted(out)

def literal(path, name):
    """The strings of `NAME = Literal[...]` or `NAME = [...]` in a Python file."""
    src = open(path, encoding="utf-8").read()
    m = re.search(name + r"\s*=\s*(?:Literal)?\[(.*?)\]", src, re.S)
    return re.findall(r'"([^"]+)"', m.group(1))

def engine(kind, paths):
    """Flags, plus the accepted values of the flags the export sets to a fixed vocabulary."""
    if kind == "vllm":
        args, cache, quant = paths
        return {"flags": flags([args], '"'),
                "choices": {"--kv-cache-dtype": literal(cache, "CacheDType"),
                            "--quantization": literal(quant, "QuantizationMethods"),
                            "--dtype": literal(args.replace("engine/arg_utils.py", "config/model.py"), "ModelDType")
                            if os.path.exists(args.replace("engine/arg_utils.py", "config/model.py")) else []}}
    (args,) = paths
    src = open(args, encoding="utf-8").read()
    kv = re.search(r'"--kv-cache-dtype",.*?choices=\[(.*?)\]', src, re.S)
    dt = re.search(r'"--dtype",.*?choices=\[(.*?)\]', src, re.S)
    return {"flags": flags([args], '"'),
            "choices": {"--kv-cache-dtype": re.findall(r'"([^"]+)"', kv.group(1)),
                        "--quantization": literal(args, "QUANTIZATION_CHOICES"),
                        "--dtype": re.findall(r'"([^"]+)"', dt.group(1))}}

def deepspeed(path):
    src = open(path, encoding="utf-8").read()
    typed = {}
    for k, t in re.findall(r"<i>\*\*([a-z0-9_]+)\*\*</i>: \[([a-z ]+)\]", src) + re.findall(
        r"\*\*\*([a-z0-9_]+)\*\*\*: \[([a-z ]+)\]", src
    ):
        typed.setdefault(k, set()).add(t.strip())
    in_examples = set()
    for block in re.findall(r"```json\n(.*?)```", src, re.S):
        in_examples |= set(re.findall(r'"([a-z0-9_]+)"\s*:', block))
    keys = {k: sorted(v) for k, v in typed.items()}
    for k in in_examples:
        keys.setdefault(k, [])
    return dict(sorted(keys.items()))

def accelerate(config_args, launch):
    src = open(config_args, encoding="utf-8").read()
    fields = set()
    for cls in ("BaseConfig", "ClusterConfig"):
        m = re.search(r"class %s[^\n]*:\n(.*?)(?=\nclass |\Z)" % cls, src, re.S)
        fields |= set(re.findall(r"^    ([a-z_][a-z0-9_]*): ", m.group(1), re.M))
    launch_src = open(launch, encoding="utf-8").read()
    fsdp = set(re.findall(r'"--(fsdp_[a-z0-9_]+)"', launch_src))
    return {"top_level": sorted(fields), "fsdp_config": sorted(fsdp),
            "launch_flags": sorted(set(re.findall(r'"(--[a-z0-9_-]+)"', launch_src)))}

def alibaba(path):
    src = open(path, encoding="utf-8").read()
    body = src[src.index("class RunInstancesRequest(DaraModel)"):src.index("class RunInstancesRequestTag(")]
    to_map = body[body.index("def to_map"):body.index("def from_map")]
    return sorted(set(re.findall(r"result\['([A-Za-z]+)'\]", to_map)))

TENCENT_MODELS = ["RunInstancesRequest", "Placement", "ActionTimer", "VirtualPrivateCloud",
                  "InstanceMarketOptionsRequest", "InstanceChargePrepaid", "SystemDisk"]

def tencent(path):
    src = open(path, encoding="utf-8").read()
    out = {}
    for name in TENCENT_MODELS:
        m = re.search(r"\nclass %s\(AbstractModel\):\n(.*?)(?=\nclass )" % name, src, re.S)
        out[name] = sorted(set(re.findall(r"self\._([A-Za-z0-9]+) = None", m.group(1))))
    return out

def litgpt(root):
    """LitGPT at ROOT (the package directory): config keys per subcommand, TrainArgs fields."""
    def params(rel):
        src = open(os.path.join(root, rel), encoding="utf-8").read()
        sig = src[src.index("\ndef setup("):]
        sig = sig[: re.search(r"\n\)", sig).start()]  # the signature's closing parenthesis
        return sorted(set(re.findall(r"^    ([a-z_][a-z0-9_]*):", sig, re.M)))
    args = open(os.path.join(root, "args.py"), encoding="utf-8").read()
    body = re.search(r"class TrainArgs:\n(.*?)(?=\n@dataclass|\nclass )", args, re.S).group(1)
    lora = open(os.path.join(root, "finetune/lora.py"), encoding="utf-8").read()
    quant = re.search(r"quantize: Optional\[Literal\[(.*?)\]\]", lora, re.S).group(1)
    return {"commands": {"finetune_lora": params("finetune/lora.py"),
                         "finetune_full": params("finetune/full.py"),
                         "pretrain": params("pretrain.py")},
            "train": sorted(set(re.findall(r"^    ([a-z_][a-z0-9_]*):", body, re.M))),
            "quantize": re.findall(r'"([^"]+)"', quant)}

def huawei(path):
    d = json.load(open(path, encoding="utf-8"))
    return {"$ref": "#/definitions/CreateServersRequestBody", "definitions": d["definitions"]}

if __name__ == "__main__":
    args = sys.argv[1:]
    meta = args[args.index("--meta") + 1]
    args = args[: args.index("--meta")]
    kind, paths = args[0], args[1:]
    if kind in ("vllm", "sglang"):
        data = engine(kind, paths)
    elif kind == "megatron":
        data = flags(paths, "'")
    elif kind == "deepspeed":
        data = deepspeed(paths[0])
    elif kind == "litgpt":
        data = litgpt(paths[0])
    elif kind == "alibaba":
        data = alibaba(paths[0])
    elif kind == "tencent":
        data = tencent(paths[0])
    elif kind == "huawei":
        schema = huawei(paths[0])
        schema["_source"] = meta
        json.dump(schema, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
        print()
        sys.exit(0)
    elif kind == "skypilot":
        import sky
        from sky.utils import schemas
        schema = schemas.get_task_schema()
        schema["properties"]["resources"] = schemas.get_resources_schema()
        schema["properties"]["service"] = schemas.get_service_schema()
        schema["_source"] = "SkyPilot %s: %s" % (sky.__version__, meta)
        json.dump(schema, sys.stdout, indent=1, sort_keys=True)
        print()
        sys.exit(0)
    elif kind == "kubernetes":
        import kubernetes.client.models as m
        def strip(x):
            if isinstance(x, dict):
                return {k: strip(v) for k, v in x.items() if k not in ("description", "title")}
            if isinstance(x, list):
                return [strip(v) for v in x]
            return x
        schema = strip(getattr(m, paths[0]).model_json_schema(by_alias=True))
        schema["_source"] = meta
        json.dump(schema, sys.stdout, indent=1, sort_keys=True)
        print()
        sys.exit(0)
    elif kind == "accelerate":
        data = accelerate(paths[0], paths[1])
    else:
        sys.exit("kind: vllm|sglang|megatron|deepspeed|accelerate")
    json.dump({"_source": meta, "items": data}, sys.stdout, indent=1)
    print()
