package figure

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"html"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"golang.org/x/image/font/sfnt"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestPDF draws every figure case as a PDF: a whole PDF (header, the
// cross-reference table and trailer, %%EOF), its fonts embedded, the
// strings it shows those of the SVG, in order, its
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
			if shown, want := pdfShownText(t, pa), svgTexts(a.SVG); !slices.Equal(shown, want) {
				t.Errorf("the PDF shows\n%q\nthe SVG\n%q", shown, want)
			}
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

// checkPDF checks that pdf is a whole PDF of one page with its font
// embedded, its cross-reference table right, and the fixed dates.
func checkPDF(t *testing.T, pdf []byte) {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.")) {
		t.Errorf("the PDF starts %q", pdf[:min(len(pdf), 8)])
	}
	if !bytes.HasSuffix(bytes.TrimRight(pdf, "\n"), []byte("%%EOF")) || !bytes.Contains(pdf, []byte("\ntrailer\n")) || !bytes.Contains(pdf, []byte("\nxref\n")) {
		t.Errorf("the PDF has no trailer, cross-reference table or %%%%EOF")
	}
	if !bytes.Contains(pdf, []byte("/FontFile2")) {
		t.Errorf("the PDF's font is not embedded (no /FontFile2)")
	} else {
		pdfFonts(t, pdf) // fonts that parse
	}
	checkXref(t, pdf)
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
	pc := newPDFCanvas(100, 100)
	pc.SetColor(color.NRGBA{R: 0, G: 114, B: 178, A: 89})
	var p vg.Path
	p.Move(vg.Point{X: 10, Y: 10})
	p.Line(vg.Point{X: 50, Y: 10})
	p.Line(vg.Point{X: 50, Y: 50})
	p.Close()
	pc.Fill(p)
	var buf bytes.Buffer
	if err := pc.writeTo(&buf); err != nil {
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
	pc := newPDFCanvas(100, 100)
	dc := draw.New(pc)
	dc.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: 2, Shape: draw.CircleGlyph{}}, vg.Point{X: 30, Y: 40})
	var buf bytes.Buffer
	if err := pc.writeTo(&buf); err != nil {
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

// TestPDFWritesTheSVGsText: the text of a figure with names in Polish,
// Czech, Greek and Cyrillic and the signs the figures use (−, ρ, √n, ≥)
// is in the PDF as in the SVG, character for character, as Unicode a
// viewer can search and copy: each string shown, read back through the
// font's ToUnicode map (every code is its own character), and, where
// Ghostscript is installed, what its text extraction finds. vgpdf wrote
// Windows-1252, so that "Příjem" came out "P?íjem", "Εισόδημα" and
// "Доход" as question marks, and ρ as "rho".
func TestPDFWritesTheSVGsText(t *testing.T) {
	names := []string{"Dochód", "Příjem", "Εισόδημα", "Доход", "łódź", "Ωmega"}
	title := "ρ − 0.5 ≥ √n · 2"
	m := make([]float64, len(names)*len(names))
	for i := range names {
		for j := range names {
			m[i*len(names)+j] = math.Pow(-0.6, math.Abs(float64(i-j)))
		}
	}
	fig, err := Heatmap(title, names, m)
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := fig.PDF()
	if err != nil {
		t.Fatal(err)
	}
	checkPDF(t, pdf)
	shown := pdfShownText(t, pdf)
	if want := svgTexts(fig.SVG); !slices.Equal(shown, want) {
		t.Errorf("the PDF shows\n%q\nthe SVG\n%q", shown, want)
	}
	for _, want := range append([]string{title}, names...) {
		if !slices.Contains(shown, want) {
			t.Errorf("the PDF does not show %q", want)
		}
	}
	if !bytes.Contains(pdf, []byte("/Encoding /Identity-H")) || !strings.Contains(pdfStreams(t, pdf), "<0000> <FFFF> <0000>") {
		t.Errorf("the PDF's font is not Identity-H with a ToUnicode map of each code to itself")
	}
	again, err := fig.PDF()
	if err != nil || !bytes.Equal(pdf, again) {
		t.Errorf("the PDF differs between two drawings of the figure (%v)", err)
	}

	gs, err := exec.LookPath("gs")
	if err != nil {
		t.Log("no Ghostscript (gs): text extraction not checked")
		return
	}
	path := filepath.Join(t.TempDir(), "names.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gs, "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=txtwrite", "-sOutputFile=-", path).CombinedOutput()
	if err != nil {
		t.Fatalf("gs: %v\n%s", err, out)
	}
	for _, want := range append([]string{title}, names...) {
		if !strings.Contains(string(out), want) {
			t.Errorf("Ghostscript's text of the PDF does not hold %q:\n%s", want, out)
		}
	}
}

// TestPDFEmbedsOnlyTheGlyphsUsed: the font embedded in a figure's PDF
// holds the glyphs of the characters its text uses (and the components
// of composite glyphs, and .notdef), a small part of Liberation Sans's
// glyphs, not the whole font vgpdf embedded in every figure (some
// 220 kB of each PDF).
func TestPDFEmbedsOnlyTheGlyphsUsed(t *testing.T) {
	pdf := heatmapPDF(t)
	whole := liberationSans(t)
	fonts := pdfFonts(t, pdf)
	if len(fonts) != 1 {
		t.Fatalf("the PDF embeds %d fonts, want 1", len(fonts))
	}
	subset := fonts[0]
	used := map[rune]bool{}
	for _, s := range pdfShownText(t, pdf) {
		for _, r := range s {
			used[r] = true
		}
	}
	if n := subset.NumGlyphs(); n < len(used)+1 || n > 2*len(used)+1 {
		t.Errorf("the PDF's font has %d glyphs for the %d characters of its text (and .notdef); Liberation Sans has %d", n, len(used), whole.NumGlyphs())
	}
	var buf sfnt.Buffer
	for r := range used {
		if g, err := subset.GlyphIndex(&buf, r); err != nil || g == 0 {
			t.Errorf("the PDF's font has no glyph for %q (%v)", r, err)
		}
	}
	if len(pdf) > 60<<10 {
		t.Errorf("the PDF of an 8×8 heatmap is %d bytes", len(pdf))
	}
}

// TestPDFCharacterTheFontLacks: a name with characters Liberation Sans
// has no glyph for (Chinese) or beyond the Basic Multilingual Plane (an
// emoji) still makes a PDF. The first show as the font's empty box, as in
// the PNG, and read as themselves; the second, which fpdf's two-byte codes
// cannot carry (it indexed past its widths and panicked), as U+FFFD.
func TestPDFCharacterTheFontLacks(t *testing.T) {
	fig, err := Heatmap("收入 📊", []string{"收入", "a📊b"}, []float64{1, 0.5, 0.5, 1})
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := fig.PDF()
	if err != nil {
		t.Fatal(err)
	}
	shown := pdfShownText(t, pdf)
	for _, want := range []string{"收入 \uFFFD", "收入", "a\uFFFDb"} {
		if !slices.Contains(shown, want) {
			t.Errorf("the PDF does not show %q: %q", want, shown)
		}
	}
	var buf sfnt.Buffer
	if g, err := liberationSans(t).GlyphIndex(&buf, '收'); err != nil || g != 0 {
		t.Fatalf("Liberation Sans has a glyph for 收 (%d, %v): the test needs a character it lacks", g, err)
	}
}

// pdfShownText returns the strings a PDF's content streams show (Tj), each
// read as UTF-16 (fpdf's Identity-H codes, which the ToUnicode map reads
// as themselves).
func pdfShownText(t *testing.T, pdf []byte) []string {
	t.Helper()
	var out []string
	content := pdfStreams(t, pdf)
	for i := 0; ; {
		j := strings.Index(content[i:], "BT ")
		if j < 0 {
			break
		}
		i += j
		k := strings.Index(content[i:], "(")
		if k < 0 {
			break
		}
		raw, end := pdfLiteralString(content[i+k:])
		if !strings.HasPrefix(strings.TrimLeft(content[i+k+end:], " "), "Tj") {
			t.Fatalf("no Tj after the string at %d: %q", i+k, content[i+k:min(len(content), i+k+end+20)])
		}
		if len(raw)%2 != 0 {
			t.Fatalf("a string of %d bytes, not UTF-16: %q", len(raw), raw)
		}
		u := make([]uint16, len(raw)/2)
		for n := range u {
			u[n] = uint16(raw[2*n])<<8 | uint16(raw[2*n+1])
		}
		out = append(out, string(utf16.Decode(u)))
		i += k + end
	}
	return out
}

// pdfLiteralString returns the bytes of the PDF literal string s starts
// with, "(" ... ")", its escapes undone, and the index just after it.
func pdfLiteralString(s string) (string, int) {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			default:
				if e >= '0' && e <= '7' {
					v, n := 0, 0
					for ; n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7'; n++ {
						v = v*8 + int(s[i+n]-'0')
					}
					b.WriteByte(byte(v))
					i += n - 1
				} else {
					b.WriteByte(e)
				}
			}
		case c == '(':
			if depth > 0 {
				b.WriteByte(c)
			}
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return b.String(), i + 1
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), len(s)
}

// svgTexts returns the text of each <text> element of an SVG, in order.
func svgTexts(svg []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<text [^>]*>([^<]*)</text>`).FindAllSubmatch(svg, -1) {
		out = append(out, html.UnescapeString(string(m[1])))
	}
	return out
}

// pdfFonts returns the font programs a PDF embeds (its /FontFile2s).
func pdfFonts(t *testing.T, pdf []byte) []*sfnt.Font {
	t.Helper()
	var fonts []*sfnt.Font
	for _, ref := range regexp.MustCompile(`/FontFile2 (\d+) 0 R`).FindAllSubmatch(pdf, -1) {
		obj := regexp.MustCompile(`(?s)\n` + string(ref[1]) + ` 0 obj\s*<<.*?>>\s*stream\r?\n`).FindIndex(pdf)
		if obj == nil {
			t.Fatalf("no stream object %s in the PDF", ref[1])
		}
		r, err := zlib.NewReader(bytes.NewReader(pdf[obj[1]:]))
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("inflating the embedded font: %v", err)
		}
		f, err := sfnt.Parse(data)
		if err != nil {
			t.Fatalf("the embedded font does not parse: %v", err)
		}
		fonts = append(fonts, f)
	}
	return fonts
}

// liberationSans returns the whole font the figures are drawn in.
func liberationSans(t *testing.T) *sfnt.Font {
	t.Helper()
	f, err := sfnt.Parse(liberationsansregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPDFNamesItsFontASubset: the embedded font's name is a subset's, a
// tag of six capital letters, "+" and the PostScript name (ISO 32000-1
// 9.6.4), in the font, its descendant and its descriptor, and the PDF's
// cross-reference offsets still point at their objects. fpdf named it
// "utf8liberationsans-regular", which a viewer or a journal's check lists
// as a whole font, not a subset.
func TestPDFNamesItsFontASubset(t *testing.T) {
	pdf := heatmapPDF(t)
	names := regexp.MustCompile(`/(?:BaseFont|FontName) /(\S+)`).FindAllSubmatch(pdf, -1)
	if len(names) != 3 {
		t.Fatalf("the PDF names %d fonts, want 3 (the font, its descendant, its descriptor)", len(names))
	}
	for _, m := range names {
		if !regexp.MustCompile(`^[A-Z]{6}\+LiberationSans-Regular$`).Match(m[1]) || !bytes.Equal(m[1], names[0][1]) {
			t.Errorf("the PDF names its font %s, want one ABCDEF+LiberationSans-Regular", m[1])
		}
	}
	checkXref(t, pdf)
}

// checkXref checks that each offset of a PDF's cross-reference table is
// where its object starts, and startxref where the table does.
func checkXref(t *testing.T, pdf []byte) {
	t.Helper()
	start := regexp.MustCompile(`startxref\s+(\d+)\s+%%EOF\s*$`).FindSubmatch(pdf)
	if start == nil {
		t.Fatal("no startxref")
	}
	at, _ := strconv.Atoi(string(start[1]))
	if !bytes.HasPrefix(pdf[at:], []byte("xref\n")) {
		t.Fatalf("startxref %d does not point at the cross-reference table: %q", at, pdf[at:min(len(pdf), at+20)])
	}
	for i, m := range regexp.MustCompile(`(\d{10}) 00000 n `).FindAllSubmatch(pdf[at:], -1) {
		off, _ := strconv.Atoi(string(m[1]))
		if want := fmt.Sprintf("%d 0 obj", i+1); !bytes.HasPrefix(pdf[off:], []byte(want)) {
			t.Errorf("object %d's offset %d points at %q", i+1, off, pdf[off:min(len(pdf), off+12)])
		}
	}
}

// TestPDFEmbedsALargeImageUpright: an image that would be more than
// maxPDFRectangles rectangles (a heatmap of some 500 columns) is embedded
// as an image, its first row at the top of its rectangle, as in the PNG.
// It was drawn upside down (vgpdf's placement on a canvas whose y runs
// up), so that a large heatmap's rows no longer met their labels.
func TestPDFEmbedsALargeImageUpright(t *testing.T) {
	const n = 512
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			img.Set(x, y, color.RGBA{R: uint8(255 * ((x + y) % 2)), A: 255}) // a checkerboard: no two neighbours alike
		}
	}
	if len(imageRectangles(img)) <= maxPDFRectangles {
		t.Fatalf("the image is %d rectangles, not more than %d", len(imageRectangles(img)), maxPDFRectangles)
	}
	pc := newPDFCanvas(200, 200)
	rect := vg.Rectangle{Min: vg.Point{X: 20, Y: 100}, Max: vg.Point{X: 120, Y: 180}}
	pc.DrawImage(rect, img)
	var buf bytes.Buffer
	if err := pc.writeTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("/Subtype /Image")) {
		t.Fatal("the PDF does not embed the image")
	}
	// The image's unit square, its first row at y = 1, on the page.
	ctm := pdfImageMatrix(t, pdfStreams(t, buf.Bytes()))
	at := func(x, y float64) (float64, float64) {
		return ctm[0]*x + ctm[2]*y + ctm[4], ctm[1]*x + ctm[3]*y + ctm[5]
	}
	for _, corner := range []struct{ ux, uy, x, y float64 }{{0, 1, 20, 180}, {1, 0, 120, 100}} {
		if x, y := at(corner.ux, corner.uy); math.Abs(x-corner.x) > 1e-3 || math.Abs(y-corner.y) > 1e-3 {
			t.Errorf("the image's corner (%g, %g) is at (%g, %g) on the page, want (%g, %g)", corner.ux, corner.uy, x, y, corner.x, corner.y)
		}
	}
}

// pdfImageMatrix returns the transformation in effect at the first image
// a content stream paints (Do), from its q, Q and cm operators.
func pdfImageMatrix(t *testing.T, content string) [6]float64 {
	t.Helper()
	ctm := [6]float64{1, 0, 0, 1, 0, 0}
	var stack [][6]float64
	var operands []float64
	for _, tok := range strings.Fields(content) {
		if v, err := strconv.ParseFloat(tok, 64); err == nil {
			operands = append(operands, v)
			continue
		}
		switch tok {
		case "q":
			stack = append(stack, ctm)
		case "Q":
			ctm, stack = stack[len(stack)-1], stack[:len(stack)-1]
		case "cm":
			m := operands[len(operands)-6:]
			// m × ctm, as PDF concatenates a cm before the current matrix.
			ctm = [6]float64{
				m[0]*ctm[0] + m[1]*ctm[2], m[0]*ctm[1] + m[1]*ctm[3],
				m[2]*ctm[0] + m[3]*ctm[2], m[2]*ctm[1] + m[3]*ctm[3],
				m[4]*ctm[0] + m[5]*ctm[2] + ctm[4], m[4]*ctm[1] + m[5]*ctm[3] + ctm[5],
			}
		case "Do":
			return ctm
		}
		operands = operands[:0]
	}
	t.Fatal("the content paints no image")
	return ctm
}

// heatmapPDF is the PDF of the plot fixture's 8-column heatmap.
func heatmapPDF(t *testing.T) []byte {
	t.Helper()
	fx := newPlotFixture()
	fig, err := Heatmap("posterior mean of C", fx.labels8, fx.corr8)
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := fig.PDF()
	if err != nil {
		t.Fatal(err)
	}
	return pdf
}
