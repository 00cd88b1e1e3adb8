package kernel

import (
	"context"

	"github.com/copulang/copulang/session"
)

// Engine runs cells; the session implements it.
type Engine interface {
	// ExecuteCell runs one cell; count is its execution count (In [N]),
	// or 0 when the cell takes none (silent, or not stored in the history),
	// by which the engine's later messages may name the cell. Output receives streams and displays while it
	// runs; it also implements session.Pager (pages go to the reply's
	// payload) and session.OutputClearer (clear_output). The returned
	// bundle, if non-nil, is the execute_result. A *session.Error return
	// becomes an error reply (ename/evalue/traceback); ctx is cancelled by
	// interrupt_request or SIGINT, in which case the engine returns a
	// *session.Error named KeyboardInterrupt.
	ExecuteCell(ctx context.Context, count int, code string, out session.Output) (session.MimeBundle, error)
	// Evaluate computes one expression of a request's user_expressions,
	// after the cell, without side effects on the bindings.
	Evaluate(ctx context.Context, expr string) (session.MimeBundle, error)
	// The methods below may be called while ExecuteCell runs, from another
	// goroutine: they must read the bindings safely.

	// Complete returns candidates for the text around byte offset cursor and the byte range [start, end) they replace.
	Complete(code string, cursor int) (matches []string, start, end int)
	// Inspect returns documentation for the word at byte offset cursor (detail 0 or 1), or ok=false.
	Inspect(code string, cursor, detail int) (bundle session.MimeBundle, ok bool)
	// IsComplete returns "complete", "incomplete" or "invalid" and an indent for the next line.
	IsComplete(code string) (status, indent string)
}
