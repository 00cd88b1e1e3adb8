package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/copulang/copulang/session"
)

// runScript is `copulang run FILE.cop [--out DIR]`: it runs a script through
// a fresh session, prints text and tables to stdout, writes figures as PNG
// and SVG files next to the script (or in DIR) and prints their paths. An
// error prints file:line:col, the source line and a caret, and exits 1.
func runScript(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("out", "", "directory for figures and exported files (default: next to the script)")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: copulang run FILE.cop [--out DIR]") }
	// Accept the flag before or after the file name.
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		args = fs.Args()
		if len(args) > 0 {
			files = append(files, args[0])
			args = args[1:]
		}
	}
	if len(files) != 1 {
		fs.Usage()
		return 2
	}
	file := files[0]
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "copulang run: %v\n", err)
		return 1
	}
	dir := filepath.Dir(file)
	figDir := dir
	if *outDir != "" {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "copulang run: %v\n", err)
			return 1
		}
		figDir = *outDir
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	prefix := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)) + "-"
	out := &cliOutput{stdout: stdout, stderr: stderr, dir: figDir, prefix: prefix}
	s := session.New(session.Options{Dir: dir, OutDir: figDir})
	if err := s.RunScript(ctx, file, src, out); err != nil {
		var se *session.Error
		if errors.As(err, &se) && len(se.Traceback) > 0 {
			fmt.Fprintln(stderr, strings.Join(se.Traceback, "\n"))
		} else {
			fmt.Fprintf(stderr, "%v\n", err)
		}
		return 1
	}
	return 0
}

// cliOutput is the session.Output of `copulang run`: text goes to stdout,
// progress to stderr at most every two seconds, and figures to files.
type cliOutput struct {
	stdout, stderr io.Writer
	dir            string
	prefix         string // prepended to figure names: the script's base name
	lastProgress   time.Time
}

func (o *cliOutput) Stream(name, text string) {
	w := o.stdout
	if name == "stderr" {
		w = o.stderr
	}
	io.WriteString(w, text)
}

func (o *cliOutput) Display(b session.MimeBundle, displayID string) {
	if displayID != "" { // live progress: the first state
		o.progress(b, true)
		return
	}
	if t, ok := b["text/plain"].(string); ok {
		fmt.Fprintln(o.stdout, strings.TrimRight(t, "\n"))
	}
}

func (o *cliOutput) UpdateDisplay(b session.MimeBundle, displayID string) {
	o.progress(b, false)
}

func (o *cliOutput) progress(b session.MimeBundle, force bool) {
	t, _ := b["text/plain"].(string)
	if !force && time.Since(o.lastProgress) < 2*time.Second {
		return
	}
	o.lastProgress = time.Now()
	fmt.Fprintln(o.stderr, strings.TrimRight(t, "\n"))
}

// WriteFigure saves a figure as SCRIPT-NAME.png and SCRIPT-NAME.svg and
// prints their paths.
func (o *cliOutput) WriteFigure(name string, f *session.Figure) error {
	base := filepath.Join(o.dir, o.prefix+name)
	if err := os.WriteFile(base+".png", f.PNG, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".svg", f.SVG, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "wrote %s.png and %s.svg (%s)\n", base, base, f.Text)
	return nil
}
