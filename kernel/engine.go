package kernel

import (
	"context"

	"github.com/copulang/copulang/session"
)

// Engine runs cells; the session implements it.
type Engine interface {
	// Execute runs one cell. Output receives streams and displays while it runs. The returned bundle, if non-nil, is the execute_result. A *session.Error return becomes an error reply (ename/evalue/traceback); ctx is cancelled by interrupt_request or SIGINT, in which case the engine returns a *session.Error named KeyboardInterrupt.
	Execute(ctx context.Context, code string, out session.Output) (session.MimeBundle, error)
	// Complete returns candidates for the text around byte offset cursor and the byte range [start, end) they replace.
	Complete(code string, cursor int) (matches []string, start, end int)
	// Inspect returns documentation for the word at byte offset cursor (detail 0 or 1), or ok=false.
	Inspect(code string, cursor, detail int) (bundle session.MimeBundle, ok bool)
	// IsComplete returns "complete", "incomplete" or "invalid" and an indent for the next line.
	IsComplete(code string) (status, indent string)
}
