package session

import (
	"encoding/base64"
	"fmt"
	"html"

	"github.com/copulang/copulang/figure"
)

// MimeBundle maps a MIME type to its representation, as Jupyter's
// display_data and execute_result messages carry it: text types are strings,
// binary types (image/png) are base64 strings, JSON types are JSON values.
type MimeBundle map[string]any

// figureBundle returns a figure as Jupyter display data: "image/png" as a
// base64 string, "text/html" as an <img> showing the SVG from a data: URI,
// at the PNG's size and with the text as its alt, and "text/plain".
//
// The SVG goes inside text/html, not as image/svg+xml, because of what
// nbconvert (6.5.3, Debian 12's) does with image/svg+xml: its HTML exporter
// passes that output through lxml's Cleaner, which takes out every SVG
// element and leaves a blank figure (jupyter/nbconvert#1849), and its LaTeX
// and PDF exporters turn it into PDF with Inkscape and fail when Inkscape is
// not installed, whatever else the bundle holds. text/html ranks above the
// images in Notebook 6 and nbconvert's HTML and Markdown exporters (and in
// JupyterLab); nbconvert does not sanitise it unless asked, and the
// sanitiser Notebook 6 applies to untrusted outputs, JupyterLab's, keeps an
// <img>'s data: URI. LaTeX and jupyter console, which take no HTML, show
// the PNG or the text.
func figureBundle(f *figure.Figure) MimeBundle {
	return MimeBundle{
		"image/png":  base64.StdEncoding.EncodeToString(f.PNG),
		"text/html":  figureHTML(f),
		"text/plain": f.Text,
	}
}

// figureHTML is an <img> of the figure's SVG as a base64 data: URI, whose
// width and height are the PNG's pixels (the SVG's size at 96 dpi).
func figureHTML(f *figure.Figure) string {
	return fmt.Sprintf(`<img src="data:image/svg+xml;base64,%s" width="%d" height="%d" alt="%s">`,
		base64.StdEncoding.EncodeToString(f.SVG), f.Width, f.Height, html.EscapeString(f.Text))
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
