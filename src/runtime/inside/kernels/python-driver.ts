// The Python side of a kernel: a small program the runtime starts with `python3 -c`, which starts an
// ipykernel through jupyter_client's KernelManager (Jupyter's own client speaking the Jupyter protocol
// over ZeroMQ, on unix sockets so no port or network is needed) and runs cells for the runtime. It
// reads one JSON request per line on stdin and writes one JSON answer per line on stdout:
//   start:   {"ready": true, "pid": <kernel pid>}  (or {"failed": "<why>"})
//   {"id": n, "code": "..."}  →  {"id": n, "status": "ok"|"error", "count": k, "outputs": [...]}
// Outputs are the kernel's iopub messages for that cell, in order: stream text, execute_result and
// display_data bundles (mime type → data; images base64 as Jupyter sends them), errors with traceback.
// Interrupts come from the runtime as SIGINT to the kernel's pid (what interrupt_kernel does).
export const PYTHON_DRIVER = String.raw`
import json, os, sys, tempfile
def say(message):
    sys.__stdout__.write(json.dumps(message) + "\n")
    sys.__stdout__.flush()
try:
    from jupyter_client import KernelManager
except Exception as err:
    say({"failed": "jupyter_client is not installed here (%s)" % err})
    sys.exit(3)
scratch = tempfile.mkdtemp(prefix="toolgate-kernel-")
km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(scratch, "k"))
km.connection_file = os.path.join(scratch, "connection.json")
env = dict(os.environ)
# Debian's matplotlib finds its matplotlibrc through /etc, which a sandbox may not show: an empty one
# (matplotlib's defaults; ipykernel picks the inline backend, which renders with Agg) unless one is set.
if "MATPLOTLIBRC" not in env:
    open(os.path.join(scratch, "matplotlibrc"), "w").close()
    env["MATPLOTLIBRC"] = scratch
try:
    km.start_kernel(cwd=os.getcwd(), env=env)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
except Exception as err:
    say({"failed": "the kernel did not start (%s: %s)" % (type(err).__name__, err)})
    try:
        km.shutdown_kernel(now=True)
    except Exception:
        pass
    sys.exit(3)
provisioner = getattr(km, "provisioner", None)
pid = getattr(provisioner, "pid", None) or getattr(getattr(km, "kernel", None), "pid", None)
say({"ready": True, "pid": pid})

def run(request):
    msg_id = kc.execute(request["code"], store_history=True, allow_stdin=False)
    outputs = []
    status = "ok"
    count = None
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=1)
        except Exception:
            if not km.is_alive():
                return {"id": request["id"], "status": "dead", "outputs": outputs}
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            break
        if kind == "execute_input":
            count = content.get("execution_count")
        if kind == "stream":
            if outputs and outputs[-1]["type"] == "stream" and outputs[-1]["name"] == content["name"]:
                outputs[-1]["text"] += content["text"]
            else:
                outputs.append({"type": "stream", "name": content["name"], "text": content["text"]})
        elif kind in ("execute_result", "display_data"):
            outputs.append({"type": "result" if kind == "execute_result" else "display", "data": content["data"]})
        elif kind == "error":
            status = "error"
            outputs.append({"type": "error", "ename": content["ename"], "evalue": content["evalue"], "traceback": content["traceback"]})
        elif kind == "clear_output":
            outputs = []
    # The execute_reply (other replies, e.g. to wait_for_ready's kernel_info requests, may be queued first).
    try:
        while True:
            reply = kc.get_shell_msg(timeout=5)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
    except Exception:
        pass
    return {"id": request["id"], "status": status, "count": count, "outputs": outputs}

for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    say(run(request))
try:
    km.shutdown_kernel(now=True)
except Exception:
    pass
`;
