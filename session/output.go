package session

import (
	"encoding/base64"

	"github.com/copulang/copulang/figure"
)

// MimeBundle maps a MIME type to its representation, as Jupyter's
// display_data and execute_result messages carry it: text types are strings,
// binary types (image/png) are base64 strings, JSON types are JSON values.
type MimeBundle map[string]any

// figureBundle returns a figure as Jupyter display data: "image/png" as a
// base64 string, "image/svg+xml" as a string and "text/plain".
func figureBundle(f *figure.Figure) MimeBundle {
	return MimeBundle{
		"image/png":     base64.StdEncoding.EncodeToString(f.PNG),
		"image/svg+xml": string(f.SVG),
		"text/plain":    f.Text,
	}
}

// Output receives what a statement shows while a cell or script runs. The
// kernel implements it with iopub messages; the CLI prints text and writes
// images to files. Implementations must be safe to call from the goroutine
// running the cell only (calls are never concurrent).
type Output interface {
	// Stream writes text to the named stream, "stdout" or "stderr".
	Stream(name, text string)
	// Display shows a rich value. A non-empty displayID lets later
	// UpdateDisplay calls replace it in place (fit progress uses this).
	Display(bundle MimeBundle, displayID string)
	// UpdateDisplay replaces the value shown earlier under displayID.
	UpdateDisplay(bundle MimeBundle, displayID string)
}

// Pager is implemented by outputs that can show a long text in a pager
// (the kernel: Jupyter's "page" payload). A cell of only WORD? is answered
// there; without a pager it is the parser's error.
type Pager interface {
	Page(bundle MimeBundle)
}

// Exiter is implemented by outputs whose frontend can be asked to end (the
// kernel: Jupyter's "ask_exit" payload, which jupyter console obeys).
// A cell that is only exit or quit asks it, as in IPython.
type Exiter interface {
	AskExit()
}

// OutputClearer is implemented by outputs that can clear what the cell has
// shown so far (the kernel: clear_output); wait defers the clearing until
// the next output arrives.
type OutputClearer interface {
	ClearOutput(wait bool)
}

// Error is a failed statement, shaped like a Jupyter error reply: Name is the
// error class (SyntaxError, NameError, TypeError, ValueError, RuntimeError,
// KeyboardInterrupt), Value the one-line message, and Traceback the lines to
// print (positions, the source line with a caret, hints).
type Error struct {
	Name      string
	Value     string
	Traceback []string
}

func (e *Error) Error() string { return e.Name + ": " + e.Value }
