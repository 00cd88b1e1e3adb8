package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/kernel"
	"github.com/copulang/copulang/session"
)

// runKernel serves the Jupyter kernel on the sockets of a connection file:
// copulang kernel -f CONNECTION_FILE [--log-level LEVEL] [--log-file FILE].
// SIGTERM stops it; SIGINT interrupts the running cell.
func runKernel(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "Jupyter connection file")
	debug := fs.Bool("debug", false, "log at debug level (same as --log-level debug)")
	levelName := fs.String("log-level", "warn", "least severe log records written: debug, info, warn or error")
	logFile := fs.String("log-file", "", "append the log to `FILE` instead of standard error (which frontends such as jupyter console show to the user)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" || fs.NArg() > 0 {
		return errors.New("usage: copulang kernel -f CONNECTION_FILE")
	}
	conn, err := kernel.ReadConnectionFile(*file)
	if err != nil {
		return err
	}
	engine, err := newEngine()
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*levelName)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *levelName)
	}
	if *debug {
		level = slog.LevelDebug
	}
	logOut := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("--log-file: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	// Only warnings and errors by default: the kernel's stderr is the
	// terminal of a jupyter console user.
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err = kernel.Serve(ctx, conn, engine, kernel.DefaultInfo(version), log)
	if errors.Is(err, context.Canceled) {
		return nil // SIGTERM: a clean stop
	}
	return err
}

// newEngine returns the session that runs the kernel's cells; relative
// paths in load and export resolve against the kernel's working directory,
// which Jupyter sets to the notebook's folder.
func newEngine() (kernel.Engine, error) {
	return session.New(session.Options{}), nil
}

// runInstall writes the kernelspec: copulang install [--user | --sys-prefix
// | --prefix DIR]. The default is --user.
func runInstall(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	fs.SetOutput(stdout)
	user := fs.Bool("user", false, "install for the current user (default)")
	sysPrefix := fs.Bool("sys-prefix", false, "install into sys.prefix of /usr/bin/python3 (or /usr/local)")
	prefix := fs.String("prefix", "", "install into `DIR`/share/jupyter")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	n := 0
	for _, set := range []bool{*user, *sysPrefix, *prefix != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return errors.New("choose one of --user, --sys-prefix and --prefix DIR")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the copulang binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return fmt.Errorf("cannot resolve the copulang binary: %w", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return err
	}
	var dataDir string
	switch {
	case *sysPrefix:
		dataDir = kernel.SysPrefixDataDir("/usr/bin/python3")
	case *prefix != "":
		p, err := filepath.Abs(*prefix)
		if err != nil {
			return err
		}
		dataDir = kernel.PrefixDataDir(p)
	default:
		if dataDir, err = kernel.UserDataDir(); err != nil {
			return err
		}
	}
	dir, err := kernel.Install(dataDir, exe, highlighting())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed kernelspec %s in %s\n", kernel.SpecName, dir)
	return nil
}

// highlighting is the language as Notebook's editor highlights it, derived
// from the language's own lists: keywords are the words of the grammar
// (statement keywords and with, to, vs), builtins the distributions,
// methods and plot kinds.
func highlighting() kernel.Highlighting {
	var builtins []string
	for _, list := range [][]string{compiler.Distributions(), compiler.Methods(), compiler.PlotKinds()} {
		builtins = append(builtins, list...)
	}
	info := kernel.DefaultInfo(version).Language
	return kernel.Highlighting{Mode: info.CodeMirrorMode, MIMEType: info.MIMEType, Keywords: dsl.GrammarWords(), Builtins: builtins}
}
