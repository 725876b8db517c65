// The Python side of a kernel: a small program the runtime starts with `python3 -c`, which launches an
// ipykernel and drives it with jupyter_client's BlockingKernelClient (Jupyter's own client speaking the
// Jupyter protocol over ZeroMQ, on unix sockets so no port or network is needed) and runs cells for the runtime. It
// reads one JSON request per line on stdin and writes one JSON answer per line on stdout:
//   start:   {"ready": true, "pid": <kernel pid>}  (or {"failed": "<why>"})
//   {"id": n, "code": "..."}  →  {"id": n, "status": "ok"|"error", "count": k, "outputs": [...]}
// Outputs are the kernel's iopub messages for that cell, in order: stream text, execute_result and
// display_data bundles (mime type → data; images base64 as Jupyter sends them), errors with traceback.
// Interrupts come from the runtime as SIGINT to the kernel's pid (what interrupt_kernel does).
export const PYTHON_DRIVER = String.raw`
import atexit, importlib.util, json, os, secrets, shutil, signal, subprocess, sys, tempfile, time
def say(message):
    sys.__stdout__.write(json.dumps(message) + "\n")
    sys.__stdout__.flush()
if importlib.util.find_spec("ipykernel") is None or importlib.util.find_spec("jupyter_client") is None:
    say({"failed": "ipykernel and jupyter_client are not both installed here"})
    sys.exit(3)
# The runtime makes the scratch dir and removes it when this driver exits, however it ends (stop() kills
# it with SIGKILL, where no atexit runs); atexit covers a driver started by hand.
scratch = os.environ.pop("TOOLGATE_KERNEL_SCRATCH", None) or tempfile.mkdtemp(prefix="toolgate-kernel-")
atexit.register(shutil.rmtree, scratch, True)
for stop in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(stop, lambda *_: sys.exit(0))
connection = os.path.join(scratch, "connection.json")
with open(connection, "w") as f:
    json.dump({"transport": "ipc", "ip": os.path.join(scratch, "k"), "shell_port": 1, "iopub_port": 2,
               "stdin_port": 3, "control_port": 4, "hb_port": 5, "key": secrets.token_hex(16),
               "signature_scheme": "hmac-sha256", "kernel_name": "python3"}, f)
env = dict(os.environ)
# Debian's matplotlib finds its matplotlibrc through /etc, which a sandbox may not show: an empty one
# (matplotlib's defaults; ipykernel picks the inline backend, which renders with Agg) unless one is set.
if "MATPLOTLIBRC" not in env:
    open(os.path.join(scratch, "matplotlibrc"), "w").close()
    env["MATPLOTLIBRC"] = scratch
# The kernel is launched here, as the python3 kernelspec would (without KernelManager's kernelspec and
# provisioner lookups), and boots while this driver imports jupyter_client: each takes a good part of a
# second. Its stdout goes to stderr: this driver's stdout is the runtime's protocol.
# sys.executable is empty in some sandboxes (no /proc/self/exe to read): python3 from the PATH then.
kernel = subprocess.Popen([sys.executable or "python3", "-m", "ipykernel_launcher", "-f", connection], cwd=os.getcwd(),
                          env=env, stdin=subprocess.DEVNULL, stdout=sys.stderr)
try:
    from jupyter_client import BlockingKernelClient
    kc = BlockingKernelClient(connection_file=connection)
    kc.load_connection_file()
    kc.start_channels()
    deadline = time.monotonic() + 60
    while True:
        try:
            kc.wait_for_ready(timeout=1)
            break
        except RuntimeError:
            if kernel.poll() is not None:
                raise RuntimeError("the kernel exited with status %s" % kernel.returncode)
            if time.monotonic() > deadline:
                raise
except Exception as err:
    say({"failed": "the kernel did not start (%s: %s)" % (type(err).__name__, err)})
    kernel.kill()
    sys.exit(3)
pid = kernel.pid
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
            if kernel.poll() is not None:
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
    kc.shutdown()
    kernel.wait(timeout=2)
except Exception:
    kernel.kill()
`;
