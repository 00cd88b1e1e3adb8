package kernel

import (
	"encoding/json"

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
	progressLine // under side: the request's header, msg_id suffixed
}

// newMirroredOutput returns out's cell output, or out itself when it
// cannot have a side parent (a silent cell, a header that does not
// decode).
func newMirroredOutput(out *iopubOutput) session.Output {
	side, ok := sideParent(out.parent)
	if out.silent || !ok {
		return out
	}
	return &mirroredOutput{progressLine{iopubOutput: out, write: func(text string) {
		out.k.publish(side, "stream", map[string]string{"name": "stdout", "text": text})
	}}}
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
func (o *mirroredOutput) MirrorProgress(p session.FitProgress) { o.show(p) }
