# 面向用户的名称：云厂商、计费方式、价格类型、存储类型、瓶颈。

provider-alibaba = 阿里云
provider-huawei = 华为云
provider-tencent = 腾讯云
billing-on_demand = 按量付费
billing-monthly = 包年包月
billing-spot = 抢占式
billing-mix = 包月 { $months } 个月 + { $rest_billing } { $rest } { $unit ->
    [d] 天
   *[h] 小时
}
price-kind-list = 公开价
price-kind-user = 自有价
price-kind-estimate = 估算价
price-region-unstated = 未注明地域
price-kind-api = 接口价
access-invitation = 邀测资格
access-application = 申请/加白名单
access-ticket = 提交工单
access-contact_sales = 联系销售
bottleneck-compute = 计算
bottleneck-pipeline-bubble = 流水线气泡
bottleneck-tp-communication = TP 通信
bottleneck-dp-communication = DP 通信
bottleneck-ep-communication = EP 通信
bottleneck-host-offload = 主机卸载（PCIe）
bottleneck-host-cpu = 主机 CPU
bottleneck-memory-bandwidth = 显存带宽
bottleneck-network = 网络
bottleneck-input = 数据输入
task-pretrain = 预训练
task-full_finetune = 全参微调
task-lora = LoRA 微调
task-qlora = QLoRA 微调
task-inference = 推理
# 存储类型：各云厂商控制台的中文产品名。
storage-alibaba-essd-pl0 = ESSD PL0 云盘
storage-alibaba-essd-pl1 = ESSD PL1 云盘
storage-alibaba-essd-pl2 = ESSD PL2 云盘
storage-alibaba-essd-pl3 = ESSD PL3 云盘
storage-alibaba-essd-autopl = ESSD AutoPL 云盘（基准性能）
storage-alibaba-nas-performance = 文件存储 NAS 通用型（性能型）
storage-alibaba-nas-capacity = 文件存储 NAS 通用型（容量型）
storage-alibaba-nas-extreme = 文件存储 NAS 极速型
storage-alibaba-cpfs-100 = 文件存储 CPFS 通用型 100 MB/s/TiB
storage-alibaba-cpfs-200 = 文件存储 CPFS 通用型 200 MB/s/TiB
storage-alibaba-oss-standard = 对象存储 OSS 标准型（本地冗余）
storage-huawei-evs-essd = 云硬盘 EVS 极速型 SSD
storage-huawei-evs-ssd = 云硬盘 EVS 超高 IO
storage-huawei-evs-gpssd = 云硬盘 EVS 通用型 SSD
storage-huawei-evs-sas = 云硬盘 EVS 高 IO
storage-huawei-evs-gpssd2 = 云硬盘 EVS 通用型 SSD V2（基准性能）
storage-huawei-sfs-turbo-20 = 弹性文件服务 SFS Turbo 20 MB/s/TiB
storage-huawei-sfs-turbo-40 = 弹性文件服务 SFS Turbo 40 MB/s/TiB
storage-huawei-sfs-turbo-125 = 弹性文件服务 SFS Turbo 125 MB/s/TiB
storage-huawei-sfs-turbo-250 = 弹性文件服务 SFS Turbo 250 MB/s/TiB
storage-huawei-sfs-turbo-500 = 弹性文件服务 SFS Turbo 500 MB/s/TiB
storage-huawei-sfs-turbo-1000 = 弹性文件服务 SFS Turbo 1000 MB/s/TiB
storage-huawei-obs = 对象存储服务 OBS
storage-tencent-cbs-hssd = 云硬盘 CBS 增强型 SSD（基准性能）
storage-tencent-cfs-standard = 文件存储 CFS 标准型
storage-tencent-cfs-hp = 文件存储 CFS 性能型
storage-tencent-cfs-turbo = 文件存储 CFS Turbo（标准型/性能型）
storage-tencent-cos = 对象存储 COS
confidence-confirmed = 已确认
confidence-likely = 很可能
confidence-unverified = 未核实
unit-gpus = { $n } 张卡
unit-hours = { $h } 小时
unit-minutes = { $m } 分钟
unit-days = { $d } 天
unit-years = { $y } 年
cny-amount = ¥{ $zh ->
    [yi] { $y }亿
   *[plain] { $x }
}
