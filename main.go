// Command copulang runs the copulang modelling language for Gaussian copula
// models of ordinal data: as a script runner, as a Jupyter kernel, and as a
// benchmark driver.
//
// Usage:
//
//	copulang run FILE.cop [--out DIR]      (exit status 0, 1 on an error, 130 after Ctrl-C)
//	copulang kernel -f CONNECTION_FILE
//	copulang install [--user | --sys-prefix | --prefix DIR]
//	copulang bench hough|samplers [flags]
//	copulang version
package main

import (
	"fmt"
	"io"
	"os"
)

// version is the copulang release; the kernel reports it in kernel_info.
const version = "0.1.0"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a command line and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	var err error
	switch args[0] {
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "copulang %s\n", version)
		return 0
	case "bench":
		err = runBench(args[1:], stdout)
	case "run":
		return runScript(args[1:], stdout, stderr)
	case "kernel":
		err = runKernel(args[1:], stderr)
	case "install":
		err = runInstall(args[1:], stdout)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "copulang: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "copulang %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  copulang run FILE.cop [--out DIR]       run a script: checked whole first; Ctrl-C stops the
                                          running fit, keeps its draws and goes on, a second
                                          Ctrl-C stops the script; exit status 0, 1 (error)
                                          or 130 (interrupted); figures go next to the script
                                          or in DIR, the files it names (export, impute to,
                                          fit file =) where it says, relative to the script
  copulang kernel -f CONNECTION_FILE      run the Jupyter kernel
  copulang install [--user|--sys-prefix|--prefix DIR]
                                          install the Jupyter kernelspec
  copulang bench NAME [flags]             run a benchmark (flags: bench NAME -h):
`+benchUsage()+`  copulang version                        print the version
`)
}
