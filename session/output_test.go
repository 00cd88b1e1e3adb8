package session

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/copulang/copulang/figure"
)

// figureImg matches the <img> figureHTML writes.
var figureImg = regexp.MustCompile(`^<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)" width="(\d+)" height="(\d+)" alt="([^"]*)">$`)

// bundleSVG returns the SVG a figure's display data shows, decoded from the
// data: URI of its text/html <img>, and whether it holds one.
func bundleSVG(b MimeBundle) (string, bool) {
	h, _ := b["text/html"].(string)
	m := figureImg.FindStringSubmatch(h)
	if m == nil {
		return "", false
	}
	svg, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		return "", false
	}
	return string(svg), true
}

func TestFigureBundle(t *testing.T) {
	f := &figure.Figure{PNG: []byte{0x89, 'P', 'N', 'G'}, SVG: []byte(`<svg width="480pt" height="300pt"/>`),
		Text: `trace of m.C["a & b", <c>]`, Width: 640, Height: 400}
	b := figureBundle(f)
	if got, _ := b["image/png"].(string); got != base64.StdEncoding.EncodeToString(f.PNG) {
		t.Errorf("image/png = %q", got)
	}
	if got, _ := b["text/plain"].(string); got != f.Text {
		t.Errorf("text/plain = %q", got)
	}
	h, _ := b["text/html"].(string)
	m := figureImg.FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("text/html is not an <img> of the SVG: %q", h)
	}
	if svg, _ := bundleSVG(b); svg != string(f.SVG) {
		t.Errorf("the <img> shows %q, want the figure's SVG %q", svg, f.SVG)
	}
	if m[2] != "640" || m[3] != "400" {
		t.Errorf("the <img> is %s×%s, want the PNG's 640×400", m[2], m[3])
	}
	if want := `trace of m.C[&#34;a &amp; b&#34;, &lt;c&gt;]`; m[4] != want {
		t.Errorf("alt = %q, want %q", m[4], want)
	}
	// No image/svg+xml: nbconvert's HTML exporter blanks it and its LaTeX
	// exporter fails on it without Inkscape.
	if _, ok := b["image/svg+xml"]; ok {
		t.Errorf("the bundle holds image/svg+xml")
	}
	if len(b) != 3 {
		t.Errorf("bundle has %d entries, want 3", len(b))
	}
}

// TestFigureBundleOfAPlot checks the bundle of a real plot: the <img>'s size
// is the size the SVG declares (in points, 3/4 of a pixel at 96 dpi), so
// that the vector picture shows as large as the PNG would.
func TestFigureBundleOfAPlot(t *testing.T) {
	f, err := figure.Trace("m.C[1, 2]", [][]float64{{0.1, 0.2, 0.3}, {0.2, 0.1, 0.3}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := figureBundle(f)
	svg, ok := bundleSVG(b)
	if !ok || !strings.Contains(svg, "<path") {
		t.Fatalf("text/html does not show the plot's SVG: %.200q", b["text/html"])
	}
	size := regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`).FindStringSubmatch(svg)
	if size == nil {
		t.Fatalf("the SVG declares no size in points: %.200q", svg)
	}
	m := figureImg.FindStringSubmatch(b["text/html"].(string))
	for i, what := range []string{"width", "height"} {
		var pt, px float64
		if _, err := fmt.Sscan(size[i+1], &pt); err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscan(m[i+2], &px); err != nil {
			t.Fatal(err)
		}
		if math.Abs(pt*96/72-px) > 1 {
			t.Errorf("the <img>'s %s is %g px, the SVG's %g pt (%g px)", what, px, pt, pt*96/72)
		}
	}
}
