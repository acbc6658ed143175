package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const versionLong = `Prints the version set at build time (-ldflags "-X main.version=..."), or
"dev"; mmbot --version prints the same line.`

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "print the version",
		Long:    versionLong,
		Example: "  mmbot version\n  mmbot --version",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(e.stdout, "mmbot", cmd.Root().Version)
			return err
		},
	}
}
