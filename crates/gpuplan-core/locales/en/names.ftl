# Names shown to the user: providers, billing modes, price kinds, storage classes, bottlenecks.

provider-alibaba = Alibaba Cloud
provider-huawei = Huawei Cloud
provider-tencent = Tencent Cloud
billing-on_demand = on-demand
billing-monthly = monthly
billing-spot = spot
billing-mix = { $months ->
    [one] 1 month
   *[other] { $months } months
} monthly + { $rest } { $unit ->
    [d] d
   *[h] h
} { $rest_billing }
price-kind-list = list
price-kind-user = user
price-kind-estimate = estimate
price-region-unstated = region not stated
price-kind-api = api
access-invitation = invitation
access-application = application / whitelist
access-ticket = ticket
access-contact_sales = contact sales
bottleneck-compute = compute
bottleneck-pipeline-bubble = pipeline bubble
bottleneck-tp-communication = TP comm
bottleneck-dp-communication = DP comm
bottleneck-ep-communication = EP comm
bottleneck-host-offload = host offload (PCIe)
bottleneck-host-cpu = host CPU
bottleneck-memory-bandwidth = memory BW
bottleneck-network = network
bottleneck-input = input
task-pretrain = pretraining
task-full_finetune = full fine-tune
task-lora = LoRA
task-qlora = QLoRA
task-inference = inference
# Storage classes, by catalog id (data/catalog/storage.toml); the English names are the data file's.
storage-alibaba-essd-pl0 = ESSD PL0
storage-alibaba-essd-pl1 = ESSD PL1
storage-alibaba-essd-pl2 = ESSD PL2
storage-alibaba-essd-pl3 = ESSD PL3
storage-alibaba-essd-autopl = ESSD AutoPL (baseline)
storage-alibaba-nas-performance = NAS General-purpose Performance
storage-alibaba-nas-capacity = NAS General-purpose Capacity
storage-alibaba-nas-extreme = Extreme NAS
storage-alibaba-cpfs-100 = CPFS General-purpose 100 MB/s/TiB
storage-alibaba-cpfs-200 = CPFS General-purpose 200 MB/s/TiB
storage-alibaba-oss-standard = OSS Standard (LRS)
storage-huawei-evs-essd = EVS Extreme SSD
storage-huawei-evs-ssd = EVS Ultra-high I/O
storage-huawei-evs-gpssd = EVS General Purpose SSD
storage-huawei-evs-sas = EVS High I/O
storage-huawei-evs-gpssd2 = EVS General Purpose SSD V2 (baseline)
storage-huawei-sfs-turbo-20 = SFS Turbo 20 MB/s/TiB
storage-huawei-sfs-turbo-40 = SFS Turbo 40 MB/s/TiB
storage-huawei-sfs-turbo-125 = SFS Turbo 125 MB/s/TiB
storage-huawei-sfs-turbo-250 = SFS Turbo 250 MB/s/TiB
storage-huawei-sfs-turbo-500 = SFS Turbo 500 MB/s/TiB
storage-huawei-sfs-turbo-1000 = SFS Turbo 1000 MB/s/TiB
storage-huawei-obs = OBS (object)
storage-tencent-cbs-hssd = CBS Enhanced SSD (baseline)
storage-tencent-cfs-standard = CFS Standard
storage-tencent-cfs-hp = CFS High-Performance
storage-tencent-cfs-turbo = CFS Turbo (Standard / High-Performance)
storage-tencent-cos = COS (object)
confidence-confirmed = confirmed
confidence-likely = likely
confidence-unverified = unverified
unit-gpus = { $n ->
    [one] { $n } GPU
   *[other] { $n } GPUs
}
unit-hours = { $h } h
unit-minutes = { $m } min
unit-days = { $d } d
unit-years = { $y } years
cny-amount = ¥{ $en ->
    [b] { $b }B
   *[plain] { $x }
}
