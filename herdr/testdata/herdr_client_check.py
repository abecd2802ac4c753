"""Drives a herdr socket through PyPI's herdr-client, for every method orcr uses.

Usage: python herdr_client_check.py SOCKET. Prints one JSON line per call:
{"method": ..., "type": <result type>} or {"method": ..., "error": <code>} or
{"method": ..., "client_error": <message>} when the client rejected an answer.
"""

import json
import sys
import time

from herdr_client import HerdrApiError, HerdrClient, HerdrClientError

client = HerdrClient(socket_path=sys.argv[1], timeout=5.0)


def call(method, fn):
    try:
        result = fn()
    except HerdrApiError as exc:
        print(json.dumps({"method": method, "error": exc.code}), flush=True)
        return None
    except HerdrClientError as exc:
        print(json.dumps({"method": method, "client_error": str(exc)}), flush=True)
        return None
    print(json.dumps({"method": method, "type": result.get("type")}), flush=True)
    return result


call("ping", client.ping)
ws = call("workspace.create", lambda: client.request("workspace.create", {"label": "py", "focus": False}))
ws_id = ws["workspace"]["workspace_id"]
call("workspace.list", client.workspace_list)
applied = call("layout.apply", lambda: client.request("layout.apply", {
    "workspace_id": ws_id, "tab_label": "py", "focus": False,
    "root": {"type": "pane", "label": "py/a", "cwd": "/tmp",
             "command": ["/bin/sh", "-c", "echo ready-py; exec cat"], "env": {"ORCR_ID": "py1"}}}))
pane = applied["layout"]["root"]["pane_id"]
call("pane.get", lambda: client.request("pane.get", {"pane_id": pane}))
call("pane.list", lambda: client.pane_list(ws_id))
call("pane.send_text", lambda: client.pane_send_text(pane, "hello-py"))
call("pane.send_keys", lambda: client.pane_send_keys(pane, ["Enter"]))
deadline = time.monotonic() + 10
while True:
    read = call("pane.read", lambda: client.pane_read(pane, source="visible", format="text", strip_ansi=True))
    text = read["read"]["text"] if read else ""
    if "ready-py" in text and text.count("hello-py") >= 2 or time.monotonic() > deadline:
        break
    time.sleep(0.05)
print(json.dumps({"screen": text}), flush=True)
call("pane.report_agent", lambda: client.request("pane.report_agent", {
    "pane_id": pane, "source": "orcr:mock", "agent": "mock", "state": "working", "message": "busy"}))
call("agent.list", lambda: client.request("agent.list"))
call("notification.show", lambda: client.request("notification.show", {"title": "title", "body": "body"}))
call("pane.move", lambda: client.request("pane.move", {
    "pane_id": pane, "focus": False, "destination": {"type": "new_tab", "workspace_id": ws_id, "label": "moved"}}))
call("pane.close", lambda: client.request("pane.close", {"pane_id": pane}))
call("pane.get", lambda: client.request("pane.get", {"pane_id": "w9:p9"}))
