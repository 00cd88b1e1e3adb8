package session

import (
	"encoding/base64"
	"testing"

	"github.com/copulang/copulang/figure"
)

func TestFigureBundle(t *testing.T) {
	f := &figure.Figure{PNG: []byte{0x89, 'P', 'N', 'G'}, SVG: []byte("<svg/>"), Text: "a plot", Width: 1, Height: 1}
	b := figureBundle(f)
	if got, _ := b["image/png"].(string); got != base64.StdEncoding.EncodeToString(f.PNG) {
		t.Errorf("image/png = %q", got)
	}
	if got, _ := b["image/svg+xml"].(string); got != "<svg/>" {
		t.Errorf("image/svg+xml = %q", got)
	}
	if got, _ := b["text/plain"].(string); got != "a plot" {
		t.Errorf("text/plain = %q", got)
	}
	if len(b) != 3 {
		t.Errorf("bundle has %d entries, want 3", len(b))
	}
}
