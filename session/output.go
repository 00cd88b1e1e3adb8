package session

// MimeBundle maps a MIME type to its representation, as Jupyter's
// display_data and execute_result messages carry it: text types are strings,
// binary types (image/png) are base64 strings, JSON types are JSON values.
type MimeBundle map[string]any

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
