package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/copulang/copulang/figure"
	"github.com/copulang/copulang/session"
)

// Exit status of `copulang run`.
const (
	exitOK    = 0
	exitError = 1 // the script failed: a syntax, check, data or run-time error
	exitUsage = 2
	// exitInterrupted is the status after Ctrl-C (SIGINT), as a shell
	// reports a command stopped by SIGINT (128 + 2), even when the rest of
	// the script ran on the draws of the interrupted fit.
	exitInterrupted = 130
)

// runScript is `copulang run FILE.cop [--out DIR]`: it runs a script through
// a fresh session, prints text and tables to stdout, writes figures as PNG
// and SVG files next to the script (or in DIR) and prints their paths. The
// files the script names itself (load, export, impute to, fit file =) are
// read and written at the paths it gives, relative to its directory as in a
// notebook: DIR does not move them, which would surprise a script that
// names a path. The whole script is checked before its first statement
// runs. An error prints file:line:col, the source line and a caret, and
// exits 1.
//
// The first Ctrl-C stops the running fit, keeps its draws and lets the
// script go on with the statements after it; with no fit running it stops
// the script once the running statement is done. A second Ctrl-C stops the
// script at once (a running fit stops within an iteration); a third kills
// the process. After any Ctrl-C the exit status is 130.
func runScript(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("out", "", "write the script's figures to `DIR` (default: next to the script); the files it names\n(export, impute to, fit file =) go where it says, relative to the script's directory")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: copulang run FILE.cop [--out DIR]")
		fs.PrintDefaults()
	}
	// Accept the flag before or after the file name.
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return exitUsage
		}
		args = fs.Args()
		if len(args) > 0 {
			files = append(files, args[0])
			args = args[1:]
		}
	}
	if len(files) != 1 {
		fs.Usage()
		return exitUsage
	}
	file := files[0]
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "copulang run: %v\n", err)
		return exitError
	}
	// A byte order mark, as Windows editors write one, is not part of the
	// script: without it the columns of errors are those an editor shows.
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	dir := filepath.Dir(file)
	figDir := dir
	if *outDir != "" {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "copulang run: %v\n", err)
			return exitError
		}
		figDir = *outDir
	}
	prefix := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)) + "-"
	progress := newProgressPrinter(stderr)
	out := &cliOutput{stdout: stdout, stderr: stderr, dir: figDir, prefix: prefix, progress: progress}
	s := session.New(session.Options{Dir: dir, ImputeRows: session.CLIImputeRows, Version: version})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	intr := watchInterrupts(s, cancel, progress)
	defer intr.stop()
	err = s.RunScript(ctx, file, src, out)
	if err != nil {
		progress.endLine()
		var se *session.Error
		if errors.As(err, &se) && len(se.Traceback) > 0 {
			fmt.Fprintln(stderr, strings.Join(se.Traceback, "\n"))
		} else {
			fmt.Fprintf(stderr, "%v\n", err)
		}
	}
	switch {
	case intr.count() > 0:
		return exitInterrupted
	case err != nil:
		return exitError
	}
	return exitOK
}

// interrupts handles the Ctrl-Cs of a script run.
type interrupts struct {
	sigs chan os.Signal
	done chan struct{}
	n    atomic.Int32
}

// watchInterrupts catches SIGINT for the run of s: the first stops the
// running fit (s.InterruptFit), or, with none running, the script (cancel);
// the second stops the script (cancel) and gives SIGINT back its default,
// so that a third kills the process.
func watchInterrupts(s *session.Session, cancel context.CancelFunc, say *progressPrinter) *interrupts {
	in := &interrupts{sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(in.sigs, os.Interrupt)
	go func() {
		for {
			select {
			case <-in.sigs:
			case <-in.done:
				return
			}
			if in.n.Add(1) == 1 && s.InterruptFit() {
				say.note("copulang: interrupt: stopping the fit; its draws are kept and the script goes on (Ctrl-C again stops the script)")
				continue
			}
			say.note("copulang: interrupt: stopping the script (Ctrl-C again kills it at once)")
			cancel()
			signal.Reset(os.Interrupt)
			return
		}
	}()
	return in
}

// count is the number of Ctrl-Cs received.
func (in *interrupts) count() int { return int(in.n.Load()) }

// stop ends the watch and gives SIGINT back its default.
func (in *interrupts) stop() {
	signal.Stop(in.sigs)
	close(in.done)
}

// cliOutput is the session.Output of `copulang run`: text goes to stdout,
// fit progress to stderr (see progressPrinter), and figures to files.
type cliOutput struct {
	stdout, stderr io.Writer
	dir            string
	prefix         string // prepended to figure names: the script's base name
	progress       *progressPrinter
}

func (o *cliOutput) Stream(name, text string) {
	w := o.stdout
	if name == "stderr" {
		w = o.stderr
	}
	io.WriteString(w, text)
}

func (o *cliOutput) Display(b session.MimeBundle, displayID string) {
	if t, ok := b["text/plain"].(string); ok {
		fmt.Fprintln(o.stdout, strings.TrimRight(t, "\n"))
	}
}

// UpdateDisplay is not used: the session sends the progress of fits,
// check and compare, the only displays it updates, to FitProgress.
func (o *cliOutput) UpdateDisplay(b session.MimeBundle, displayID string) {}

// FitProgress implements session.ProgressWriter.
func (o *cliOutput) FitProgress(p session.FitProgress) { o.progress.show(p) }

// WriteFigure saves a figure as SCRIPT-NAME.png and SCRIPT-NAME.svg and
// prints their paths.
func (o *cliOutput) WriteFigure(name string, f *figure.Figure) error {
	base := filepath.Join(o.dir, o.prefix+name)
	// Into place, as export writes, so that a crash leaves no half figure.
	for _, file := range []struct {
		ext   string
		bytes []byte
	}{{".png", f.PNG}, {".svg", f.SVG}} {
		if err := session.WriteFile(base+file.ext, func(w io.Writer) error {
			_, err := w.Write(file.bytes)
			return err
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.stdout, "wrote %s.png and %s.svg (%s)\n", base, base, f.Text)
	return nil
}
