#!/usr/bin/env python3
"""Independent cross-check of the signing test vectors in crates/gpuplan-core/src/signing.rs.

Each vector below is the provider's OWN worked example (see docs/prices.md for where each was
found); this script recomputes it step by step with Python's hmac/hashlib, following the documented
algorithm, so a bug shared by the Rust signer and its test cannot go unnoticed.
Run: python3 tools/sign_vectors.py   (prints OK per vector, exits 1 on a mismatch)
"""
import base64
import hashlib
import hmac
import sys
import urllib.parse


def sha256_hex(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def hm(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def enc(s: str) -> str:
    return urllib.parse.quote(s, safe="-_.~")


def tencent() -> str:
    payload = '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}'
    creq = ("POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\n"
            "content-type;host\n" + sha256_hex(payload.encode()))
    sts = "TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n" + sha256_hex(creq.encode())
    k = hm(b"TC3Gu5t9xGARNpq86cd98joQYCN3EXAMPLE", "2019-02-25")
    k = hm(hm(k, "cvm"), "tc3_request")
    return hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()


def alibaba_acs3() -> str:
    empty = sha256_hex(b"")
    headers = {
        "host": "ecs.cn-shanghai.aliyuncs.com", "x-acs-action": "RunInstances",
        "x-acs-content-sha256": empty, "x-acs-date": "2023-10-26T09:01:01Z",
        "x-acs-signature-nonce": "d410180a5abf7fe235dd9b74aca91fc0", "x-acs-version": "2014-05-26",
    }
    query = "&".join(f"{enc(k)}={enc(v)}" for k, v in sorted({
        "ImageId": "win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd", "RegionId": "cn-shanghai"}.items()))
    ch = "".join(f"{k}:{v}\n" for k, v in sorted(headers.items()))
    creq = f"POST\n/\n{query}\n{ch}\n{';'.join(sorted(headers))}\n{empty}"
    sts = "ACS3-HMAC-SHA256\n" + sha256_hex(creq.encode())
    return hmac.new(b"YourAccessKeySecret", sts.encode(), hashlib.sha256).hexdigest()


def alibaba_rpc() -> str:
    p = {"AccessKeyId": "testid", "Action": "DescribeRegions", "Format": "XML",
         "SignatureMethod": "HMAC-SHA1", "SignatureNonce": "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf",
         "SignatureVersion": "1.0", "Timestamp": "2016-02-23T12:46:24Z", "Version": "2014-05-26"}
    q = "&".join(f"{enc(k)}={enc(v)}" for k, v in sorted(p.items()))
    sts = "GET&%2F&" + enc(q)
    return base64.b64encode(hmac.new(b"testsecret&", sts.encode(), hashlib.sha1).digest()).decode()


def huawei() -> str:
    creq = ("GET\n/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs/\n"
            "limit=2&marker=13551d6b-755d-4757-b956-536f674975c0\n"
            "content-type:application/json\nhost:service.region.example.com\nx-sdk-date:20191115T033655Z\n\n"
            "content-type;host;x-sdk-date\n" + sha256_hex(b""))
    sts = "SDK-HMAC-SHA256\n20191115T033655Z\n" + sha256_hex(creq.encode())
    return hmac.new(b"MFyfvK41ba2giqM7Uio6PznpdUKGpownRZlmVmHc", sts.encode(), hashlib.sha256).hexdigest()


EXPECTED = {
    "tencent TC3-HMAC-SHA256": (tencent, "72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168"),
    "alibaba ACS3-HMAC-SHA256": (alibaba_acs3, "e521358f7776c97df52e6b2891a8bc73026794a071b50c3323388c4e0df64804"),
    "alibaba RPC HMAC-SHA1": (alibaba_rpc, "OLeaidS1JvxuMvnyHOwuJ+uX5qY="),
    "huawei SDK-HMAC-SHA256": (huawei, "7be6668032f70418fcc22abc52071e57aff61b84a1d2381bb430d6870f4f6ebe"),
}

if __name__ == "__main__":
    bad = 0
    for name, (f, want) in EXPECTED.items():
        got = f()
        print(f"{'OK ' if got == want else 'BAD'} {name}: {got}")
        bad += got != want
    sys.exit(1 if bad else 0)
