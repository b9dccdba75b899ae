// Runs a script as Apptainer runs /.singularity.d/env/*.sh: parsed whole by
// mvdan.cc/sh/v3's default (bash) parser, then run by its interpreter with
// allexport set (apptainer's internal/pkg/util/shell/interpreter). Prints
// LD_LIBRARY_PATH (or UNSET), then one line per variable left whose name
// starts with _envhook. Built by tests/it/export.rs against Debian's
// golang-mvdan-sh-dev.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	prog, err := syntax.NewParser().Parse(f, os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "while parsing script:", err)
		os.Exit(2)
	}
	r, err := interp.New(
		interp.StdIO(nil, os.Stdout, os.Stderr),
		interp.Params("-a"),
		interp.Env(expand.ListEnviron(os.Environ()...)),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := r.Run(context.Background(), prog); err != nil {
		fmt.Fprintln(os.Stderr, "while evaluating environment script:", err)
		os.Exit(1)
	}
	if v := r.Vars["LD_LIBRARY_PATH"]; v.IsSet() {
		fmt.Print(v.String())
	} else {
		fmt.Print("UNSET")
	}
	for name, v := range r.Vars {
		if strings.HasPrefix(name, "_envhook") && v.IsSet() {
			fmt.Printf("\nleft: %s", name)
		}
	}
}
