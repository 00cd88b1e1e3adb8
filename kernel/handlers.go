package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/copulang/copulang/kernel/internal/zmtp"
	"github.com/copulang/copulang/session"
)

// request is a decoded request and the peer to answer.
type request struct {
	from    *zmtp.Peer
	m       *Message
	arrived time.Time // when the shell reader took it off the socket
}

// iopubJoinWait bounds how long a kernel_info_request waits for an iopub
// subscriber when there is none (see handle).
const iopubJoinWait = 2 * time.Second

// handle answers one request, wrapped in busy/idle status.
//
// A kernel_info_request that arrives while no client subscribes to iopub
// waits up to iopubJoinWait for one before it is answered. Clients send it
// first and take the reply to mean that the kernel is ready, but a
// subscription, sent on its own connection, can reach the kernel after the
// request, and a message published before it is lost. jupyter_console 6.4
// then waits forever for the idle status of its first cell; an answer held
// until a subscriber is there closes that race (ipykernel leaves it open,
// but answers more slowly).
func (k *kernel) handle(ctx context.Context, s *zmtp.Socket, r request) {
	if r.m.Header.MsgType == "kernel_info_request" && !k.iopub.WaitSubscribed(iopubJoinWait) {
		k.log.Debug("kernel_info_request answered with no iopub subscriber", "waited", iopubJoinWait)
	}
	k.publishBusy(r.m)
	shutdown := k.dispatch(ctx, s, r)
	k.publishIdle(r.m)
	if shutdown {
		k.requestShutdown()
	}
}

// publishBusy publishes the busy status of request m, answered beside a
// running execute_request, under the lock publishIdle holds: the shell and
// control channels answer on goroutines of their own, so a busy published
// without it could fall between another request's idle and the running
// cell's busy that must follow that idle at once (TestStatusStaysBusyDuringCell
// caught a control request's busy there).
func (k *kernel) publishBusy(m *Message) {
	k.statusMu.Lock()
	defer k.statusMu.Unlock()
	k.publish(m, "status", map[string]string{"execution_state": "busy"})
}

// publishIdle publishes the idle status of request m, answered while no
// execute_request or one other than m may be running. If one is, its busy
// status follows at once: frontends take the latest status on iopub for the
// kernel's state, whatever its parent (Notebook 6's kernel indicator, which
// also turns its kernel completion back on), so without it a Shift-Tab or a
// second client's request during a long fit would show the kernel idle until
// the fit ends. The idle itself must stay: clients such as JupyterLab count a
// request done only once its idle status has arrived.
func (k *kernel) publishIdle(m *Message) {
	k.statusMu.Lock()
	defer k.statusMu.Unlock()
	k.publish(m, "status", map[string]string{"execution_state": "idle"})
	if k.executing != nil && k.executing != m {
		k.publish(k.executing, "status", map[string]string{"execution_state": "busy"})
	}
}

// setExecuting publishes the busy status of execute_request m (nil: the idle
// status of the running one) and records it as running, so that publishIdle
// never says busy for a request whose idle status has gone out.
func (k *kernel) setExecuting(m *Message) {
	k.statusMu.Lock()
	defer k.statusMu.Unlock()
	if m != nil {
		k.publish(m, "status", map[string]string{"execution_state": "busy"})
	} else if k.executing != nil {
		k.publish(k.executing, "status", map[string]string{"execution_state": "idle"})
	}
	k.executing = m
}

// dispatch answers a request other than execute_request and reports whether
// it asked the kernel to shut down.
func (k *kernel) dispatch(ctx context.Context, s *zmtp.Socket, r request) (shutdown bool) {
	m := r.m
	t := m.Header.MsgType
	onShell := s == k.shell
	switch {
	case t == "kernel_info_request":
		k.reply(s, r, "kernel_info_reply", k.kernelInfo())
	case t == "shutdown_request":
		var req struct {
			Restart bool `json:"restart"`
		}
		json.Unmarshal(m.Content, &req) // a missing or malformed flag means false
		content := map[string]any{"status": "ok", "restart": req.Restart}
		k.reply(s, r, "shutdown_reply", content)
		k.publish(m, "shutdown_reply", content) // as protocol 5.4 asks
		return true
	case t == "interrupt_request":
		k.interrupt()
		k.reply(s, r, "interrupt_reply", map[string]string{"status": "ok"})
	case t == "history_request":
		k.reply(s, r, "history_reply", k.historyReply(m.Content))
	case t == "comm_info_request":
		k.reply(s, r, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case t == "comm_open":
		// No comm targets: close at once, as the protocol asks.
		var req struct {
			CommID string `json:"comm_id"`
		}
		json.Unmarshal(m.Content, &req)
		k.publish(m, "comm_close", map[string]any{"comm_id": req.CommID, "data": map[string]any{}})
	case t == "comm_msg" || t == "comm_close":
		k.log.Debug("ignoring comm message", "msg_type", t)
	case onShell && t == "complete_request":
		k.reply(s, r, "complete_reply", k.complete(m.Content))
	case onShell && t == "inspect_request":
		k.reply(s, r, "inspect_reply", k.inspect(m.Content))
	case onShell && t == "is_complete_request":
		k.reply(s, r, "is_complete_reply", k.isComplete(m.Header.Session, m.Content))
	default:
		k.log.Warn("ignoring unknown message type", "socket", s.Name(), "msg_type", t)
	}
	return false
}

func (k *kernel) kernelInfo() map[string]any {
	links := k.info.HelpLinks
	if links == nil {
		links = []HelpLink{}
	}
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       protocolVersion,
		"implementation":         k.info.Implementation,
		"implementation_version": k.info.ImplementationVersion,
		"language_info":          k.info.Language,
		"banner":                 k.info.Banner,
		"help_links":             links,
		"debugger":               false,
	}
}

// runCell calls the engine, turning a panic into an InternalError.
func (k *kernel) runCell(ctx context.Context, count int, code string, out session.Output) (bundle session.MimeBundle, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = k.panicError("execute", r)
		}
	}()
	return k.engine.ExecuteCell(ctx, count, code, out)
}

// panicError logs a recovered engine panic and describes it as an error.
func (k *kernel) panicError(what string, r any) *session.Error {
	stack := string(debug.Stack())
	k.log.Error("engine panicked", "in", what, "panic", fmt.Sprint(r), "stack", stack)
	return &session.Error{
		Name:      "InternalError",
		Value:     fmt.Sprintf("copulang crashed in %s: %v (please report this bug)", what, r),
		Traceback: append([]string{"InternalError: " + fmt.Sprint(r)}, strings.Split(strings.TrimSpace(stack), "\n")...),
	}
}

func asSessionError(err error) *session.Error {
	var e *session.Error
	if errors.As(err, &e) {
		return e
	}
	return &session.Error{Name: "InternalError", Value: err.Error(), Traceback: []string{"InternalError: " + err.Error()}}
}

func errorContent(e *session.Error) map[string]any {
	tb := e.Traceback
	if tb == nil {
		tb = []string{e.Name + ": " + e.Value}
	}
	return map[string]any{"status": "error", "ename": e.Name, "evalue": e.Value, "traceback": wireTraceback(tb)}
}

// wireTraceback is a traceback's lines as an error message carries them:
// one element holding them all, a line each, as IPython sends each frame
// of a traceback as one multi-line string. Frontends join the elements
// with newlines (Notebook, JupyterLab, nbconvert's HTML, jupyter console),
// so that they show the same, but nbconvert's Markdown writes each element
// as a paragraph of its own: a line each put blank lines between the
// error's source line and its caret. nil stays empty.
func wireTraceback(lines []string) []string {
	if len(lines) == 0 {
		return []string{}
	}
	return []string{strings.Join(lines, "\n")}
}

// iopubOutput publishes a cell's outputs on iopub and collects the
// execute_reply's payload (pages, ask_exit).
type iopubOutput struct {
	k       *kernel
	parent  *Message
	silent  bool
	payload []any
}

// Page shows a bundle in the frontend's pager, as the "page" payload of the
// execute_reply.
func (o *iopubOutput) Page(bundle session.MimeBundle) {
	o.payload = append(o.payload, map[string]any{"source": "page", "data": bundle, "start": 0})
}

// AskExit asks the frontend to end, as the "ask_exit" payload of the
// execute_reply; keepkernel false, so jupyter console shuts the kernel down
// as it leaves.
func (o *iopubOutput) AskExit() {
	o.payload = append(o.payload, map[string]any{"source": "ask_exit", "keepkernel": false})
}

func (o *iopubOutput) payloads() []any {
	if o.payload == nil {
		return []any{}
	}
	return o.payload
}

// ClearOutput clears the cell's output: at once, or with wait when the
// next output arrives (which avoids flicker).
func (o *iopubOutput) ClearOutput(wait bool) {
	if o.silent {
		return
	}
	o.k.publish(o.parent, "clear_output", map[string]bool{"wait": wait})
}

func (o *iopubOutput) Stream(name, text string) {
	if o.silent {
		return
	}
	o.k.publish(o.parent, "stream", map[string]string{"name": name, "text": text})
}

func (o *iopubOutput) Display(bundle session.MimeBundle, displayID string) {
	o.display("display_data", bundle, displayID)
}

func (o *iopubOutput) UpdateDisplay(bundle session.MimeBundle, displayID string) {
	o.display("update_display_data", bundle, displayID)
}

func (o *iopubOutput) display(msgType string, bundle session.MimeBundle, displayID string) {
	if o.silent {
		return
	}
	data, err := json.Marshal(bundle)
	if err != nil {
		o.k.log.Error("cannot encode display data", "err", err)
		o.Stream("stderr", "copulang: cannot display a value: "+err.Error()+"\n")
		return
	}
	content := map[string]any{"data": json.RawMessage(data), "metadata": map[string]any{}}
	if displayID != "" {
		content["transient"] = map[string]string{"display_id": displayID}
	}
	o.k.publish(o.parent, msgType, content)
}

// complete answers complete_request, converting Jupyter's code-point cursor
// to the engine's byte offsets and back.
func (k *kernel) complete(content json.RawMessage) (reply map[string]any) {
	var req struct {
		Code      string `json:"code"`
		CursorPos *int   `json:"cursor_pos"`
	}
	if err := json.Unmarshal(content, &req); err != nil {
		return errorContent(&session.Error{Name: "InternalError", Value: "malformed complete_request: " + err.Error()})
	}
	cursor := len(req.Code)
	if req.CursorPos != nil {
		cursor = runeToByte(req.Code, *req.CursorPos)
	}
	defer func() {
		if r := recover(); r != nil {
			reply = errorContent(k.panicError("complete", r))
		}
	}()
	matches, start, end := k.engine.Complete(req.Code, cursor)
	if matches == nil {
		matches = []string{}
	}
	start, end = clamp(start, 0, len(req.Code)), clamp(end, 0, len(req.Code))
	if start > end {
		start, end = cursor, cursor
	}
	return map[string]any{
		"status": "ok", "matches": matches,
		"cursor_start": byteToRune(req.Code, start), "cursor_end": byteToRune(req.Code, end),
		"metadata": map[string]any{},
	}
}

// inspect answers inspect_request.
func (k *kernel) inspect(content json.RawMessage) (reply map[string]any) {
	var req struct {
		Code        string `json:"code"`
		CursorPos   *int   `json:"cursor_pos"`
		DetailLevel int    `json:"detail_level"`
	}
	if err := json.Unmarshal(content, &req); err != nil {
		return errorContent(&session.Error{Name: "InternalError", Value: "malformed inspect_request: " + err.Error()})
	}
	cursor := len(req.Code)
	if req.CursorPos != nil {
		cursor = runeToByte(req.Code, *req.CursorPos)
	}
	defer func() {
		if r := recover(); r != nil {
			reply = errorContent(k.panicError("inspect", r))
		}
	}()
	bundle, ok := k.engine.Inspect(req.Code, cursor, req.DetailLevel)
	if !ok || bundle == nil {
		bundle = session.MimeBundle{}
	}
	data, err := json.Marshal(bundle)
	if err != nil {
		return errorContent(&session.Error{Name: "InternalError", Value: "cannot encode the documentation: " + err.Error()})
	}
	return map[string]any{"status": "ok", "found": ok, "data": json.RawMessage(data), "metadata": map[string]any{}}
}

// isComplete answers is_complete_request from client session, which the
// kernel takes for a console once it executes the code asked about (see
// consoleSessions). Asked while that console's own cell runs, it has left
// the cell behind (consoleOutput.leftBehind).
func (k *kernel) isComplete(session string, content json.RawMessage) (reply map[string]any) {
	var req struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(content, &req); err != nil {
		return map[string]any{"status": "unknown"}
	}
	k.consoles.checkedCompleteness(session, req.Code)
	k.mu.Lock()
	running := k.consoleCell
	k.mu.Unlock()
	if running != nil && running.session == session {
		running.leftBehind()
	}
	defer func() {
		if r := recover(); r != nil {
			k.panicError("is_complete", r)
			reply = map[string]any{"status": "unknown"}
		}
	}()
	status, indent := k.engine.IsComplete(req.Code)
	switch status {
	case "incomplete":
		return map[string]any{"status": status, "indent": indent}
	case "complete", "invalid":
		return map[string]any{"status": status}
	default:
		return map[string]any{"status": "unknown"}
	}
}

// runeToByte converts an offset in code points to a byte offset in s,
// clamped to [0, len(s)].
func runeToByte(s string, n int) int {
	if n <= 0 {
		return 0
	}
	i := 0
	for b := range s {
		if i == n {
			return b
		}
		i++
	}
	return len(s)
}

// byteToRune converts a byte offset in s (clamped, and moved back to the
// start of a code point) to an offset in code points.
func byteToRune(s string, b int) int {
	b = clamp(b, 0, len(s))
	for b > 0 && b < len(s) && !utf8.RuneStart(s[b]) {
		b--
	}
	return utf8.RuneCountInString(s[:b])
}

func clamp(x, lo, hi int) int {
	return max(lo, min(x, hi))
}
