package notebooks

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// figureNotebook is a notebook of one figure that needs no fit.
const figureNotebook = `{
 "cells": [
  {"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, "outputs": [],
   "source": "data sim = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)\nplot heatmap sim"}
 ],
 "metadata": {"kernelspec": {"display_name": "Copulang", "language": "copulang", "name": "copulang"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

// dataURI matches a base64 data: URI of an image in an attribute or a
// Markdown link.
var dataURI = regexp.MustCompile(`data:image/(png|svg\+xml);base64,([A-Za-z0-9+/=]+)`)

// TestNbconvertShowsFigures executes a notebook that draws a figure and
// converts it with nbconvert's default options to HTML, Markdown and LaTeX,
// and checks that each output holds the figure's picture: its PNG or SVG as
// a data: URI, or a file extracted beside it that the output names. Debian
// 12's nbconvert 6.5.3 wrote the figure to HTML as an SVG stripped of every
// element (blank), and stopped the LaTeX conversion because Inkscape, which
// it runs on every image/svg+xml output, was not installed.
func TestNbconvertShowsFigures(t *testing.T) {
	requireNbconvert(t)
	env := kernelEnv(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "executed.ipynb"), executeFigureNotebook(t, env), 0o644); err != nil {
		t.Fatal(err)
	}
	pictures := figurePictures(t, readNotebook(t, filepath.Join(dir, "executed.ipynb")))

	for _, tc := range []struct {
		name, to, ext string
		args          []string
		// want, if set, is how the output must show the figure.
		want string
	}{
		{"html", "html", ".html", nil, ""},
		{"markdown", "markdown", ".md", nil, ""},
		// The README's option for Markdown that GitHub shows, which
		// takes no data: URI: the PNG as a file beside it.
		{"markdown-png", "markdown", ".md", []string{"--NbConvertBase.display_data_priority=['image/png','text/html','text/plain']"}, "png as converted-markdown-png_files/"},
		{"latex", "latex", ".tex", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--to", tc.to, "--output", "converted-" + tc.name}, tc.args...)
			runNbconvert(t, env, dir, append(args, "executed.ipynb")...)
			out, err := os.ReadFile(filepath.Join(dir, "converted-"+tc.name+tc.ext))
			if err != nil {
				t.Fatal(err)
			}
			shown := shownPictures(t, out, filepath.Join(dir, "converted-"+tc.name+"_files"), pictures)
			switch {
			case len(shown) == 0:
				t.Errorf("--to %s shows none of the figure's pictures (%d bytes of output)", tc.to, len(out))
			case tc.want != "" && (len(shown) != 1 || !strings.HasPrefix(shown[0], tc.want)):
				t.Errorf("--to %s %s shows %s, want only %s…", tc.to, strings.Join(tc.args, " "), strings.Join(shown, ", "), tc.want)
			default:
				t.Logf("--to %s shows %s", tc.to, strings.Join(shown, ", "))
			}
		})
	}
}

// executeFigureNotebook returns figureNotebook executed by nbconvert with
// the copulang kernel of env.
func executeFigureNotebook(t *testing.T, env []string) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "figure.ipynb"), []byte(figureNotebook), 0o644); err != nil {
		t.Fatal(err)
	}
	runNbconvert(t, env, dir, "--to", "notebook", "--execute", "--ExecutePreprocessor.kernel_name=copulang",
		"--ExecutePreprocessor.timeout=120", "--output", "executed", "figure.ipynb")
	b, err := os.ReadFile(filepath.Join(dir, "executed.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runNbconvert runs jupyter nbconvert with args in dir.
func runNbconvert(t *testing.T, env []string, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(python, append([]string{"-m", "nbconvert"}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	// A kernel nbconvert started may outlive it and keep its output open.
	cmd.WaitDelay = 10 * time.Second
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nbconvert %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

// figurePictures returns the pictures of the one figure an executed
// notebook shows, by kind: its PNG and, whether as image/svg+xml or as the
// data: URI of an <img> in text/html, its SVG.
func figurePictures(t *testing.T, nb notebook) map[string][]byte {
	t.Helper()
	pictures := map[string][]byte{}
	for _, c := range nb.Cells {
		for _, raw := range c.Outputs {
			var o output
			if err := json.Unmarshal(raw, &o); err != nil {
				t.Fatal(err)
			}
			if o.OutputType == "error" {
				t.Fatalf("the figure's cell failed: %s: %s", o.Ename, o.Evalue)
			}
			png, ok := o.Data["image/png"]
			if !ok {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(joinLines(png), "\n", ""))
			if err != nil {
				t.Fatalf("image/png: %v", err)
			}
			pictures["png"] = b
			if svg, ok := o.Data["image/svg+xml"]; ok {
				pictures["svg"] = []byte(joinLines(svg))
			}
			if m := dataURI.FindStringSubmatch(joinLines(o.Data["text/html"])); m != nil && m[1] == "svg+xml" {
				b, err := base64.StdEncoding.DecodeString(m[2])
				if err != nil {
					t.Fatalf("text/html's SVG: %v", err)
				}
				pictures["svg"] = b
			}
		}
	}
	if pictures["png"] == nil {
		t.Fatal("the executed notebook shows no figure")
	}
	if svg := pictures["svg"]; !bytes.Contains(svg, []byte("<path")) {
		t.Fatalf("the figure's SVG draws nothing: %.200q", svg)
	}
	return pictures
}

// shownPictures lists which of the pictures a converted notebook shows: as
// a data: URI in it, or as a file in filesDir that it names.
func shownPictures(t *testing.T, out []byte, filesDir string, pictures map[string][]byte) []string {
	t.Helper()
	var shown []string
	for _, m := range dataURI.FindAllSubmatch(out, -1) {
		b, err := base64.StdEncoding.DecodeString(string(m[2]))
		if err != nil {
			continue
		}
		for kind, p := range pictures {
			if bytes.Equal(b, p) {
				shown = append(shown, kind+" as a data: URI")
			}
		}
	}
	files, _ := os.ReadDir(filesDir)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(filesDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.Base(filesDir) + "/" + f.Name()
		for kind, p := range pictures {
			if bytes.Equal(b, p) && bytes.Contains(out, []byte(rel)) {
				shown = append(shown, fmt.Sprintf("%s as %s", kind, rel))
			}
		}
	}
	return shown
}

// joinLines joins a notebook's multiline string, stored as a string or a
// list of lines.
func joinLines(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, l := range x {
			fmt.Fprint(&b, l)
		}
		return b.String()
	}
	return ""
}

// errorNotebook is a notebook of one mistake, tagged as meant to fail.
const errorNotebook = `{
 "cells": [
  {"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, "outputs": [],
   "source": "data sim = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)"},
  {"cell_type": "code", "execution_count": null, "id": "c2", "metadata": {"tags": ["raises-exception"]}, "outputs": [],
   "source": "summary sim[Y9]"}
 ],
 "metadata": {"kernelspec": {"display_name": "Copulang", "language": "copulang", "name": "copulang"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

// TestNbconvertMarkdownKeepsErrorsTogether: nbconvert --to markdown writes
// an error as its lines together, the caret right under the source line,
// as HTML and jupyter console show it. It wrote each element of the
// traceback as a paragraph, and the kernel sent a line each: a blank line
// came between every two.
func TestNbconvertMarkdownKeepsErrorsTogether(t *testing.T) {
	requireNbconvert(t)
	env := kernelEnv(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mistake.ipynb"), []byte(errorNotebook), 0o644); err != nil {
		t.Fatal(err)
	}
	runNbconvert(t, env, dir, "--to", "notebook", "--execute", "--ExecutePreprocessor.kernel_name=copulang",
		"--ExecutePreprocessor.timeout=120", "--output", "executed", "mistake.ipynb")
	runNbconvert(t, env, dir, "--to", "markdown", "--output", "converted", "executed.ipynb")
	md, err := os.ReadFile(filepath.Join(dir, "converted.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	i := strings.Index(text, "    CheckError: ")
	if i < 0 {
		t.Fatalf("the Markdown shows no error:\n%s", md)
	}
	lines := strings.Split(text[i:], "\n")
	if len(lines) < 4 || lines[1] != "    summary sim[Y9]" || strings.TrimSpace(lines[2]) != "^" || !strings.HasPrefix(lines[3], "    hint: ") {
		t.Errorf("the error's lines are not together in the Markdown:\n%s", strings.Join(lines[:min(len(lines), 8)], "\n"))
	}
}
