"""The Python half of bench/sdk.bench.ts: read_file through the toolgate package vs the same request with
raw httpx on the same kind of pooled client, in alternating rounds. Prints one JSON line of per-call
times (ms) and the client process's CPU per call (µs), which is what the SDK adds whatever the server does. Environment: TOOLGATE_URL, TOOLGATE_API_KEY, BENCH_CALLS."""
import json
import os
import statistics
import time
import uuid

import httpx

from toolgate import Toolgate

CALLS = int(os.environ.get("BENCH_CALLS", "1500"))
ROUND, WARMUP = 20, 200

tg = Toolgate()
with tg.session(profile="read-only", files={"a.txt": "one\ntwo\n"}) as s:
    raw = httpx.Client(timeout=60)
    url = f"{tg.url}/v1/sessions/{s.id}/tools/read_file"
    headers = {"Authorization": f"Bearer {s.token}"}

    def raw_call():
        # The request the SDK sends: with an Idempotency-Key (its retries are safe because of it).
        key = {"Idempotency-Key": f"raw_{uuid.uuid4().hex}"}
        response = raw.post(url, json={"path": "a.txt"}, headers={**headers, **key})
        assert response.status_code == 200
        return response.json()["data"]

    def sdk_call():
        return s.read_file(path="a.txt")

    times = {"raw": [], "sdk": []}
    cpu = {"raw": 0.0, "sdk": 0.0}
    for _ in range(WARMUP):
        raw_call()
        sdk_call()
    done = 0
    while done < CALLS:
        for name, call in (("raw", raw_call), ("sdk", sdk_call)):
            cpu_start = time.process_time()
            for _ in range(ROUND):
                start = time.perf_counter()
                data = call()
                times[name].append((time.perf_counter() - start) * 1000)
                assert data["content"] == "one\ntwo"
            cpu[name] += time.process_time() - cpu_start
        done += ROUND
    raw.close()
tg.close()
print(json.dumps({
    name: {"p50": statistics.median(v), "p99": sorted(v)[int(len(v) * 0.99) - 1], "calls": len(v), "cpuUs": cpu[name] / len(v) * 1e6}
    for name, v in times.items()
}))
