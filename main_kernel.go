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
	"strconv"
	"syscall"
	"time"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/kernel"
	"github.com/copulang/copulang/session"
)

// runKernel serves the Jupyter kernel on the sockets of a connection file:
// copulang kernel -f CONNECTION_FILE [--log-level LEVEL] [--log-file FILE].
// SIGTERM stops it; SIGINT interrupts the running cell. Started by a Jupyter
// client (JPY_PARENT_PID set), it also stops once that client has exited.
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
	if client := os.Getenv("JPY_PARENT_PID"); client != "" {
		var stopWatch context.CancelFunc
		ctx, stopWatch = untilOrphaned(ctx, clientGone(client), time.Second)
		defer stopWatch()
	}
	err = kernel.Serve(ctx, conn, engine, kernel.DefaultInfo(version), log)
	if errors.Is(err, context.Canceled) {
		return nil // SIGTERM: a clean stop
	}
	return err
}

// errOrphaned is the cause of a kernel's stop when the client that started
// it has exited.
var errOrphaned = errors.New("the Jupyter client that started the kernel has exited")

// untilOrphaned returns a context cancelled, with cause errOrphaned, once
// gone (checked every period) reports that the client that started the
// kernel has exited. A frontend that dies without a shutdown_request
// (killed, or crashed, or one whose request was lost as it closed its
// sockets) would otherwise leave the kernel running, holding its memory and
// the terminal or pipe it inherited, with no client to stop it. ipykernel
// stops too when JPY_PARENT_PID is set and its parent has gone.
func untilOrphaned(ctx context.Context, gone func() bool, period time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if gone() {
					cancel(errOrphaned)
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// clientGone returns the test of untilOrphaned for a kernel whose
// environment has JPY_PARENT_PID = client, the process id of the Jupyter
// client that launched it: that process no longer exists, or the kernel's
// parent is no longer the one it started with (it was handed to another
// process). Either alone can miss: the client may have launched the kernel
// through a wrapper, so that it is not the kernel's parent, and it may have
// exited before the kernel started watching.
func clientGone(client string) func() bool {
	parent := os.Getppid()
	pid, err := strconv.Atoi(client)
	if err != nil || pid <= 1 {
		pid = 0
	}
	return func() bool {
		return os.Getppid() != parent || pid > 0 && processGone(pid)
	}
}

// newEngine returns the session that runs the kernel's cells; relative
// paths in load and export resolve against the kernel's working directory,
// which Jupyter sets to the notebook's folder. Its tables show at most
// session.KernelTableRows rows in HTML, and the first of those of more than
// session.KernelTextRows in text (what jupyter console prints).
func newEngine() (kernel.Engine, error) {
	return session.New(session.Options{TableRows: session.KernelTableRows, TextRows: session.KernelTextRows, Version: version}), nil
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
