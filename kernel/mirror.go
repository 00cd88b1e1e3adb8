package kernel

import (
	"encoding/json"
	"sync"

	"github.com/copulang/copulang/session"
)

// This file sends the progress of long statements, beside its display, as
// text for consoles that the kernel cannot tell from a notebook.
//
// jupyter console --simple-prompt (and with use_kernel_is_complete off)
// sends nothing that nbclient or Notebook does not (see console.go), so its
// cells get the progress display, whose updates it ignores. It prints a
// cell's output by the client session of its parent header alone
// (ZMQTerminalInteractiveShell.include_output), while Notebook 6
// (kernel.js, _handle_output_message), nbclient (_async_poll_output_msg)
// and jupyter_client's execute_interactive route output by the parent's
// msg_id and drop output whose msg_id is no request of theirs (Notebook 6
// raises an event received_unsolicited_message that nothing handles); so,
// from its source (not run here), does JupyterLab: a notebook's or
// console's requests take the output of their own msg_id, and a console
// that shows other clients' output (packages/console/src/foreign.ts, off
// by default) skips its own session and finds the cell by msg_id. So
// the kernel sends each state after the display's first as a stdout line
// rewritten in place, as a console's (consoleOutput), under a parent header
// that is the request's with its msg_id suffixed (sideParent): the console
// prints it after the display's first state, and a notebook's output, as
// nbconvert saves it, is the same bytes as without it.

// sideSuffix ends the msg_id of the parent header of the progress text
// sent beside a display.
const sideSuffix = "-progress"

// mirroredOutput is the output of a cell that a client not known for a
// console executes: an iopubOutput that also sends the states of its
// progress displays as text under a parent of their own (see above).
type mirroredOutput struct {
	*iopubOutput
	side  *Message // parent of the text: the request's header, msg_id suffixed
	mu    sync.Mutex
	width int // runes of the progress line, 0 if none is open
}

// newMirroredOutput returns out's cell output, or out itself when it
// cannot have a side parent (a silent cell, a header that does not
// decode).
func newMirroredOutput(out *iopubOutput) session.Output {
	side, ok := sideParent(out.parent)
	if out.silent || !ok {
		return out
	}
	return &mirroredOutput{iopubOutput: out, side: side}
}

// sideParent returns a message whose header is m's with sideSuffix after
// its msg_id.
func sideParent(m *Message) (*Message, bool) {
	var header map[string]any
	if err := json.Unmarshal(m.RawHeader, &header); err != nil || header == nil {
		return nil, false
	}
	id, ok := header["msg_id"].(string)
	if !ok || id == "" {
		return nil, false
	}
	header["msg_id"] = id + sideSuffix
	raw, err := json.Marshal(header)
	if err != nil {
		return nil, false
	}
	h := m.Header
	h.MsgID = id + sideSuffix
	return &Message{Header: h, RawHeader: raw}, true
}

// MirrorProgress implements session.ProgressMirror.
func (o *mirroredOutput) MirrorProgress(p session.FitProgress) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.k.publish(o.side, "stream", map[string]string{"name": "stdout", "text": rewriteLine(&o.width, p)})
}

// endLine ends the progress line, if one is open, so that what the cell
// shows next starts a line of its own.
func (o *mirroredOutput) endLine() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
}

// endLineLocked is endLine with o.mu held: the cell's other output is
// written under it too, so that no state falls between the line's end and
// that output.
func (o *mirroredOutput) endLineLocked() {
	if o.width > 0 {
		o.width = 0
		o.k.publish(o.side, "stream", map[string]string{"name": "stdout", "text": "\n"})
	}
}

func (o *mirroredOutput) Stream(name, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
	o.iopubOutput.Stream(name, text)
}

func (o *mirroredOutput) Display(bundle session.MimeBundle, displayID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
	o.iopubOutput.Display(bundle, displayID)
}

func (o *mirroredOutput) ClearOutput(wait bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
	o.iopubOutput.ClearOutput(wait)
}
