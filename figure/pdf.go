package figure

// This file draws a figure once more as a PDF, for a paper: the same
// drawing as the PNG and SVG, its text in Unicode in the Liberation Sans it
// is laid out in, embedded with only the glyphs the figure uses, and the
// same bytes every time it is drawn.
//
// pdfCanvas is a vg.Canvas over fpdf (which gonum's vgpdf also draws
// with), not vgpdf: vgpdf embeds the whole font (some 220 kB in every
// figure) encoded as Windows-1252, so that a column named "Příjem",
// "Εισόδημα" or "Доход" lost its letters. Its drawing of paths, colours
// and transformations is vgpdf's, so that the figure looks as it did; its
// text starts at the baseline the PNG's and SVG's does. Text stays text,
// not glyph outlines: a reader can search a paper's figure for a column's
// name and copy it.

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PDF draws the figure as a PDF of the PNG's size (at 96 dpi: 640×400
// pixels is 480×300 points). Its text is the SVG's, in Unicode, in
// Liberation Sans embedded as a subset of the glyphs it uses (see
// pdfCanvas.FillString for a character the font lacks). The PDF's creation
// and modification dates are fixed (pdfDate), so that the same figure
// gives the same bytes.
func (f *Figure) PDF() (out []byte, err error) {
	if f.paint == nil {
		return nil, errors.New("figure: this figure cannot be drawn again as a PDF")
	}
	defer func() {
		// A font or image fpdf cannot read is an error of this figure,
		// not the end of the kernel.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("drawing %s as a PDF: %v", f.Text, r)
		}
	}()
	c := newPDFCanvas(pixels(f.Width), pixels(f.Height))
	f.paint(draw.New(c))
	var buf bytes.Buffer
	if err := c.writeTo(&buf); err != nil {
		return nil, fmt.Errorf("encoding PDF of %s: %w", f.Text, err)
	}
	return c.tagSubsets(buf.Bytes()), nil
}

// pdfDate is the creation and modification date of every PDF, 2000-01-01
// 00:00:00 UTC, so that the same figure drawn again gives the same file,
// as a script run again writes the same CSV.
var pdfDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pdfCanvas is a vg.CanvasSizer drawing one page of a PDF with fpdf, in
// points (vg's lengths) with y up, as vgpdf draws, except that
//   - text is written in Unicode in the figure's fonts embedded as subsets
//     (FillString);
//   - a colour's red, green and blue are its own, not premultiplied by its
//     alpha (SetColor);
//   - arcs are Bézier curves (arcsAsCurves);
//   - an image is drawn as rectangles of one colour (DrawImage), or
//     embedded upright (embedImage).
type pdfCanvas struct {
	doc  *fpdf.Fpdf
	w, h vg.Length
	// lineWidths holds the line width of each graphics state pushed:
	// a path stroked at width 0 draws nothing (PDF would draw it at the
	// thinnest line the device can).
	lineWidths []vg.Length
	// fonts maps the family name each font is registered with in doc to
	// its PostScript name (see tagSubsets).
	fonts map[string]string
	// images counts the images embedded, to name them.
	images int
}

// newPDFCanvas returns a canvas of one page of w×h.
func newPDFCanvas(w, h vg.Length) *pdfCanvas {
	doc := fpdf.NewCustom(&fpdf.InitType{
		UnitStr: "pt",
		Size:    fpdf.SizeType{Wd: w.Points(), Ht: h.Points()},
	})
	doc.SetCreationDate(pdfDate)
	doc.SetModificationDate(pdfDate)
	// fpdf writes its fonts and images in the order of a Go map unless
	// told to sort them.
	doc.SetCatalogSort(true)
	doc.SetAutoPageBreak(false, 0)
	doc.SetMargins(0, 0, 0)
	doc.AddPage()
	c := &pdfCanvas{doc: doc, w: w, h: h, lineWidths: make([]vg.Length, 1), fonts: make(map[string]string)}
	// vg's y runs up from the page's foot; fpdf's down from its top.
	c.Push()
	c.Translate(vg.Point{X: 0, Y: h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

// writeTo ends the page and writes the PDF to w.
func (c *pdfCanvas) writeTo(w io.Writer) error {
	c.Pop()
	c.doc.Close()
	return c.doc.Output(w)
}

// Size implements vg.CanvasSizer.
func (c *pdfCanvas) Size() (w, h vg.Length) { return c.w, c.h }

// SetLineWidth implements vg.Canvas.
func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.lineWidths[len(c.lineWidths)-1] = w
	c.doc.SetLineWidth(w.Points())
}

// SetLineDash implements vg.Canvas.
func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offset vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = d.Points()
	}
	c.doc.SetDashPattern(ds, offset.Points())
}

// SetColor implements vg.Canvas: the colour's own red, green and blue,
// and its opacity set apart. (vgpdf took a colour's RGBA, which are
// premultiplied by its alpha, as the colour, so that a colour of opacity a
// was drawn a times as dark at opacity a: a pairs plot's points, 35%
// opaque, came out navy where the PNG and SVG show them light blue.)
func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	n := color.NRGBA64Model.Convert(clr).(color.NRGBA64)
	r, g, b := int(n.R>>8), int(n.G>>8), int(n.B>>8)
	c.doc.SetFillColor(r, g, b)
	c.doc.SetDrawColor(r, g, b)
	c.doc.SetTextColor(r, g, b)
	c.doc.SetAlpha(float64(n.A)/math.MaxUint16, "Normal")
}

// Rotate implements vg.Canvas.
func (c *pdfCanvas) Rotate(rad float64) { c.doc.TransformRotate(-rad*180/math.Pi, 0, 0) }

// Translate implements vg.Canvas.
func (c *pdfCanvas) Translate(pt vg.Point) { c.doc.TransformTranslate(pt.X.Points(), pt.Y.Points()) }

// Scale implements vg.Canvas.
func (c *pdfCanvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

// Push implements vg.Canvas.
func (c *pdfCanvas) Push() {
	c.lineWidths = append(c.lineWidths, c.lineWidths[len(c.lineWidths)-1])
	c.doc.TransformBegin()
}

// Pop implements vg.Canvas.
func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.lineWidths = c.lineWidths[:len(c.lineWidths)-1]
}

// Stroke implements vg.Canvas.
func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.lineWidths[len(c.lineWidths)-1] > 0 {
		c.path(p, "D")
	}
}

// Fill implements vg.Canvas.
func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// path draws p, stroked ("D") or filled ("F"), its arcs as Bézier curves
// (arcsAsCurves).
func (c *pdfCanvas) path(p vg.Path, style string) {
	var start vg.Point
	for _, comp := range arcsAsCurves(p) {
		switch comp.Type {
		case vg.MoveComp:
			start = comp.Pos
			c.doc.MoveTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.LineComp:
			c.doc.LineTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.CurveComp:
			switch len(comp.Control) {
			case 1:
				c.doc.CurveTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(), comp.Pos.X.Points(), comp.Pos.Y.Points())
			case 2:
				c.doc.CurveBezierCubicTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(),
					comp.Control[1].X.Points(), comp.Control[1].Y.Points(), comp.Pos.X.Points(), comp.Pos.Y.Points())
			default:
				panic(fmt.Sprintf("figure: a PDF path's curve has %d control points", len(comp.Control)))
			}
		case vg.CloseComp:
			c.doc.LineTo(start.X.Points(), start.Y.Points())
			c.doc.ClosePath()
		default:
			panic(fmt.Sprintf("figure: a PDF path has a component of type %d", comp.Type))
		}
	}
	c.doc.DrawPath(style)
}

// FillString implements vg.Canvas: s as the SVG writes it (xmlText), in
// Unicode, in fnt embedded as a subset of the glyphs the page uses. fpdf
// writes each character as its code point (Identity-H, with a ToUnicode
// map of each code to itself), so that a PDF viewer finds and copies the
// text as it is. A character the font has no glyph for (Chinese, say:
// Liberation Sans has Latin, Greek and Cyrillic) shows as the font's
// empty box, .notdef, where the PNG leaves a blank of the same width and a
// browser draws the SVG's from another font, and still reads as itself.
// One beyond the Basic Multilingual Plane (an emoji), which fpdf's
// two-byte codes cannot carry, is written as U+FFFD, the replacement
// character (pdfRunes), which shows as the same box.
func (c *pdfCanvas) FillString(fnt font.Face, pt vg.Point, s string) {
	if fnt.Font.Size == 0 {
		return
	}
	name := c.font(fnt)
	size := fnt.Font.Size.Points()
	c.doc.SetFont(name, "", size)
	s = pdfRunes(xmlText(s))

	c.Push()
	defer c.Pop()
	c.Translate(pt)
	// fpdf's y runs down the page: flip back, so that the text stands up.
	c.Scale(1, -1)
	// Text starts s at its baseline, pt, as the PNG and SVG draw it.
	// (vgpdf wrote a cell whose baseline fpdf places at 0.8 of the font
	// size below a top guessed from the font's ascent and descent, and a
	// stray path's start, an m, before it.)
	c.doc.Text(0, 0, s)
}

// font registers fnt's font with the PDF, once, and returns its family
// name there: its PostScript name ("LiberationSans-Regular") after
// subsetPad (see tagSubsets).
func (c *pdfCanvas) font(fnt font.Face) string {
	postscript := strings.ReplaceAll(fnt.Font.Name(), " ", "")
	family := subsetPad + postscript
	if _, ok := c.fonts[family]; ok {
		return family
	}
	var raw bytes.Buffer
	if _, err := fnt.Face.WriteSourceTo(nil, &raw); err != nil {
		panic(fmt.Sprintf("reading font %s: %v", postscript, err))
	}
	c.doc.AddUTF8FontFromBytes(family, "", raw.Bytes())
	c.fonts[family] = postscript
	return family
}

// subsetPad starts the family name each font is registered with in fpdf,
// so that the name fpdf writes, "utf8" and the family in lower case, is as
// long as the subset's tagged name, "ABCDEF+" and the PostScript name
// (tagSubsets).
const subsetPad = "cpl"

// tagSubsets returns pdf with the name fpdf gives each font
// ("/utf8cplliberationsans-regular") replaced by the name PDF asks of a
// font subset: a tag of six capital letters, a plus sign and the font's
// PostScript name ("/KDNMJA+LiberationSans-Regular"; ISO 32000-1 9.6.4),
// so that a PDF viewer's or a journal's check lists it as an embedded
// subset of Liberation Sans. The tag is taken from a hash of the PDF, so
// that the same figure gives the same bytes; the names are of one length,
// so that the cross-reference table's offsets stay right.
func (c *pdfCanvas) tagSubsets(pdf []byte) []byte {
	sum := sha256.Sum256(pdf)
	for family, postscript := range c.fonts {
		from := "/utf8" + strings.ToLower(family)
		to := "/" + subsetTag(sum, postscript) + "+" + postscript
		if len(from) == len(to) {
			pdf = bytes.ReplaceAll(pdf, []byte(from), []byte(to))
		}
	}
	return pdf
}

// subsetTag returns six capital letters from the hash of a PDF and a
// font's name.
func subsetTag(sum [sha256.Size]byte, name string) string {
	h := sha256.Sum256(append(sum[:], name...))
	tag := make([]byte, 6)
	for i := range tag {
		tag[i] = 'A' + h[i]%26
	}
	return string(tag)
}

// pdfRunes returns s with each character beyond the Basic Multilingual
// Plane replaced by U+FFFD: fpdf writes a character as a two-byte code and
// keeps widths for the first 65536 only.
func pdfRunes(s string) string {
	return strings.Map(func(r rune) rune {
		if r > 0xFFFF {
			return '\uFFFD'
		}
		return r
	}, s)
}

// maxPDFRectangles bounds the rectangles an image is drawn as in a PDF;
// an image that would need more is embedded as an image.
const maxPDFRectangles = 250_000

// pdfOverlap is how far a rectangle of an image drawn as rectangles
// reaches under its neighbours to the right and below, which are drawn
// after it: abutting fills show hairline seams in PDF viewers that
// antialias their edges.
const pdfOverlap = vg.Length(0.25)

// DrawImage implements vg.Canvas: the image as rectangles of one colour,
// each a run of equal pixels in a row, over the rows that repeat it. A
// PDF viewer smooths an image scaled up (a heatmap of 60 columns, drawn
// as 60×60 pixels, comes out blurred). An image of more than
// maxPDFRectangles is embedded as a PNG.
func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	b := img.Bounds()
	cells := imageRectangles(img)
	if len(cells) > maxPDFRectangles || b.Dx() == 0 || b.Dy() == 0 {
		c.embedImage(rect, img)
		return
	}
	sx := (rect.Max.X - rect.Min.X) / vg.Length(b.Dx())
	sy := (rect.Max.Y - rect.Min.Y) / vg.Length(b.Dy())
	c.Push()
	defer c.Pop()
	for _, r := range cells {
		// Image rows run top down.
		x0, x1 := rect.Min.X+sx*vg.Length(r.x0), rect.Min.X+sx*vg.Length(r.x1)
		y0, y1 := rect.Max.Y-sy*vg.Length(r.y1), rect.Max.Y-sy*vg.Length(r.y0)
		if r.x1 < b.Dx() {
			x1 += pdfOverlap
		}
		if r.y1 < b.Dy() {
			y0 -= pdfOverlap
		}
		var p vg.Path
		p.Move(vg.Point{X: x0, Y: y0})
		p.Line(vg.Point{X: x1, Y: y0})
		p.Line(vg.Point{X: x1, Y: y1})
		p.Line(vg.Point{X: x0, Y: y1})
		p.Close()
		c.SetColor(r.color)
		c.Fill(p)
	}
}

// embedImage draws img into rect as an embedded PNG. fpdf places an
// image's first row at the top of rect as its own y runs, down the page,
// so that on this canvas, whose y runs up, the image came out upside down
// (as vgpdf drew it): the canvas is flipped about rect's middle for it.
func (c *pdfCanvas) embedImage(rect vg.Rectangle, img image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(fmt.Sprintf("encoding an image as PNG: %v", err))
	}
	c.images++
	name := fmt.Sprintf("image_%03d.png", c.images)
	opts := fpdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	c.Push()
	defer c.Pop()
	c.Translate(vg.Point{X: 0, Y: rect.Min.Y + rect.Max.Y})
	c.Scale(1, -1)
	size := rect.Size()
	c.doc.ImageOptions(name, rect.Min.X.Points(), rect.Min.Y.Points(), size.X.Points(), size.Y.Points(), false, opts, 0, "")
}

// imageRectangle is a rectangle of pixels of one colour, [x0, x1) ×
// [y0, y1) from the image's top left corner.
type imageRectangle struct {
	x0, x1, y0, y1 int
	color          color.Color
}

// imageRectangles returns img as rectangles of one colour: the runs of
// equal pixels of each row, a run of equal rows drawn once.
func imageRectangles(img image.Image) []imageRectangle {
	b := img.Bounds()
	var out []imageRectangle
	rowStart := 0 // the index in out of the last distinct row's first run
	for y := b.Min.Y; y < b.Max.Y; y++ {
		if y > b.Min.Y && sameRow(img, y, y-1) {
			for k := rowStart; k < len(out); k++ {
				out[k].y1++
			}
			continue
		}
		rowStart = len(out)
		for x := b.Min.X; x < b.Max.X; {
			col := color.RGBA64Model.Convert(img.At(x, y))
			end := x + 1
			for end < b.Max.X && color.RGBA64Model.Convert(img.At(end, y)) == col {
				end++
			}
			out = append(out, imageRectangle{x0: x - b.Min.X, x1: end - b.Min.X, y0: y - b.Min.Y, y1: y - b.Min.Y + 1, color: col})
			x = end
		}
	}
	return out
}

// sameRow reports whether rows y and z of img hold the same pixels.
func sameRow(img image.Image, y, z int) bool {
	b := img.Bounds()
	for x := b.Min.X; x < b.Max.X; x++ {
		if color.RGBA64Model.Convert(img.At(x, y)) != color.RGBA64Model.Convert(img.At(x, z)) {
			return false
		}
	}
	return true
}

// arcsAsCurves returns p with each arc written as cubic Bézier curves of
// at most a quarter turn each (a line to its start first, as an arc
// draws one from the current point). vgpdf writes an arc as fpdf's Arc,
// which paints it as a path of its own inside a q ... cm ... Q (a graphics
// state operator in the middle of the path being built, which PDF does
// not allow) and leaves the glyph's own path of one point, which
// Ghostscript painted as a speck: a pairs plot's scatter panels left a
// cloud of specks beside them.
func arcsAsCurves(p vg.Path) vg.Path {
	hasArc := false
	for _, comp := range p {
		hasArc = hasArc || comp.Type == vg.ArcComp
	}
	if !hasArc {
		return p
	}
	out := make(vg.Path, 0, len(p)+4)
	started := false
	for _, comp := range p {
		if comp.Type != vg.ArcComp {
			out = append(out, comp)
			started = started || comp.Type == vg.MoveComp
			continue
		}
		at := func(a float64) vg.Point {
			return vg.Point{X: comp.Pos.X + comp.Radius*vg.Length(math.Cos(a)), Y: comp.Pos.Y + comp.Radius*vg.Length(math.Sin(a))}
		}
		if started {
			out.Line(at(comp.Start))
		} else {
			out.Move(at(comp.Start))
			started = true
		}
		n := max(1, int(math.Ceil(math.Abs(comp.Angle)/(math.Pi/2)-1e-9)))
		step := comp.Angle / float64(n)
		k := vg.Length(4.0 / 3 * math.Tan(step/4))
		for i := range n {
			a0, a1 := comp.Start+float64(i)*step, comp.Start+float64(i+1)*step
			p0, p3 := at(a0), at(a1)
			c1 := vg.Point{X: p0.X - k*comp.Radius*vg.Length(math.Sin(a0)), Y: p0.Y + k*comp.Radius*vg.Length(math.Cos(a0))}
			c2 := vg.Point{X: p3.X + k*comp.Radius*vg.Length(math.Sin(a1)), Y: p3.Y - k*comp.Radius*vg.Length(math.Cos(a1))}
			out.CubeTo(c1, c2, p3)
		}
	}
	return out
}
