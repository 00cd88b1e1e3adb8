package figure

import (
	"bytes"
	"compress/zlib"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgpdf"
)

// TestPDF draws every figure case as a PDF: a whole PDF (header, the
// cross-reference table and trailer, %%EOF), its fonts embedded, its
// images (a large heatmap's cells, the colour bar) drawn as rectangles,
// no date of when it was drawn, and the same bytes when the same figure
// is drawn again (the case made twice; fpdf wrote a heatmap's two images
// in a random order, and the time). COPULANG_PDF_DIR=DIR writes them there to
// look at (gs -sDEVICE=png16m, or a PDF viewer).
func TestPDF(t *testing.T) {
	fx := newPlotFixture()
	dir := os.Getenv("COPULANG_PDF_DIR")
	for _, tc := range figureCases(fx) {
		if tc.wantErr != "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			a, errA := tc.make()
			b, errB := tc.make()
			if errA != nil || errB != nil {
				t.Fatalf("%v, %v", errA, errB)
			}
			pa, err := a.PDF()
			if err != nil {
				t.Fatal(err)
			}
			pb, err := b.PDF()
			if err != nil {
				t.Fatal(err)
			}
			checkPDF(t, pa)
			if !bytes.Equal(pa, pb) {
				t.Errorf("the PDF differs between two drawings of the figure")
			}
			if again, _ := a.PDF(); !bytes.Equal(pa, again) {
				t.Errorf("the PDF differs between two drawings of one Figure")
			}
			if bytes.Contains(pa, []byte("/Subtype /Image")) {
				t.Errorf("the PDF embeds an image, not rectangles")
			}
			if dir != "" {
				os.WriteFile(filepath.Join(dir, strings.NewReplacer(" ", "_", "/", "_").Replace(tc.name)+".pdf"), pa, 0o644)
			}
		})
	}
}

// checkPDF checks that pdf is a whole PDF of one page with its fonts
// embedded and the fixed dates.
func checkPDF(t *testing.T, pdf []byte) {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.")) {
		t.Errorf("the PDF starts %q", pdf[:min(len(pdf), 8)])
	}
	if !bytes.HasSuffix(bytes.TrimRight(pdf, "\n"), []byte("%%EOF")) || !bytes.Contains(pdf, []byte("\ntrailer\n")) || !bytes.Contains(pdf, []byte("\nxref\n")) {
		t.Errorf("the PDF has no trailer, cross-reference table or %%%%EOF")
	}
	if len(pdf) < 10<<10 {
		t.Errorf("the PDF is %d bytes: too small to hold a figure and its font", len(pdf))
	}
	if !bytes.Contains(pdf, []byte("/FontFile2")) {
		t.Errorf("the PDF's font is not embedded (no /FontFile2)")
	}
	if n := len(regexp.MustCompile(`\(D:20000101000000\)`).FindAll(pdf, -1)); n != 2 {
		t.Errorf("the PDF has %d fixed dates, want 2 (CreationDate, ModDate)", n)
	}
}

// TestPDFKeepsTranslucentColours: a colour drawn partly opaque keeps its
// red, green and blue in the PDF, with its opacity set apart, as the PNG
// and SVG draw it. vgpdf took them premultiplied by the opacity: a pairs
// plot's points, seriesColor(0) at 35%, were drawn 0.35 times as bright
// (navy for light blue), and every translucent line and area darker.
func TestPDFKeepsTranslucentColours(t *testing.T) {
	c := vgpdf.New(100, 100)
	pc := pdfText{c}
	pc.SetColor(color.NRGBA{R: 0, G: 114, B: 178, A: 89})
	var p vg.Path
	p.Move(vg.Point{X: 10, Y: 10})
	p.Line(vg.Point{X: 50, Y: 10})
	p.Line(vg.Point{X: 50, Y: 50})
	p.Close()
	pc.Fill(p)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	content := pdfStreams(t, buf.Bytes())
	if want := "0.000 0.447 0.698 rg"; !strings.Contains(content, want) {
		t.Errorf("the PDF's fill colour is not %q (0, 114, 178):\n%s", want, content)
	}
	if !regexp.MustCompile(`/ca 0\.3[45]`).Match(buf.Bytes()) {
		t.Errorf("the PDF does not set the fill's opacity to 0.35")
	}
}

// pdfStreams returns the text of a PDF's streams, inflated where they are
// compressed.
func pdfStreams(t *testing.T, pdf []byte) string {
	t.Helper()
	var out strings.Builder
	for _, m := range regexp.MustCompile(`(?s)stream\r?\n(.*?)endstream`).FindAllSubmatch(pdf, -1) {
		r, err := zlib.NewReader(bytes.NewReader(m[1]))
		if err != nil {
			out.Write(m[1])
			continue
		}
		data, _ := io.ReadAll(r)
		out.Write(data)
	}
	return out.String()
}

// TestPDFDrawsArcsAsCurves: a circle glyph (a scatter's point) is one
// path of Bézier curves, filled once, with no graphics state operator
// inside it. vgpdf wrote its arc as fpdf's Arc, a q ... cm inside the path
// being built, which painted the arc on its own and left a path of one
// point that Ghostscript painted as a speck beside the panel.
func TestPDFDrawsArcsAsCurves(t *testing.T) {
	c := vgpdf.New(100, 100)
	dc := draw.New(pdfText{c})
	dc.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: 2, Shape: draw.CircleGlyph{}}, vg.Point{X: 30, Y: 40})
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	content := pdfStreams(t, buf.Bytes())
	path := regexp.MustCompile(`(?s)\n([-\d.]+ [-\d.]+ m\n.*?)\n(f|F|f\*|B|S)\n`).FindStringSubmatch(content)
	if path == nil {
		t.Fatalf("no filled path in the PDF:\n%s", content)
	}
	if strings.Contains(path[1], " cm") || strings.Contains(path[1], "q ") {
		t.Errorf("the circle's path holds a graphics state operator:\n%s", path[1])
	}
	if n := strings.Count(path[1]+"\n", " c\n"); n != 4 {
		t.Errorf("the circle's path has %d curves, want 4:\n%s", n, path[1])
	}
	// The curves pass through the circle's points at 0, 90, 180 and 270
	// degrees (in the PDF's points, y up from the page's foot: 100 - 40).
	for _, want := range []string{"32.00 60.00 m", " 30.00000 62.00000 c", " 28.00000 60.00000 c", " 30.00000 58.00000 c"} {
		if !strings.Contains(path[1]+"\n", want) {
			t.Errorf("the circle's path does not hold %q:\n%s", want, path[1])
		}
	}
}
