package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/daemon"
)

const configLong = `Inspects the configuration that mmbot run would use. config check loads it
from the file, the environment and the flags, prints every key's value with
the source that set it, checks every rule and reads the account's key and
API credentials, and lists every problem (docs/configuration.md).`

const configExample = `  mmbot config check -c mmbot.toml
  MMBOT_LOG_LEVEL=debug mmbot config check -c mmbot.toml --set strategy.cycle=2s`

// newConfigCmd is "mmbot config", the parent of "config check".
func newConfigCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "config check [flags]",
		Short:   "check the configuration: values, their sources, the account (config check)",
		Long:    configLong,
		Example: configExample,
		Args:    unknownCommand,
		// config is a group: its arguments are subcommand names.
		SuggestionsMinimumDistance: suggestDistance,
		RunE: func(*cobra.Command, []string) error {
			return usagef("config needs a subcommand: check")
		},
	}
	cmd.AddCommand(newConfigCheckCmd(e))
	return cmd
}

const configCheckLong = `Loads the configuration exactly as mmbot run does: the -c file, the MMBOT_*
environment and the flags, later ones winning (docs/configuration.md). It
validates it and prints every key's effective value with the source that
set it: default, file, env MMBOT_..., or flag. Secrets print as
[redacted].

Then it reads the account as mmbot run would, without contacting the
exchange or starting anything: account.credentials_file, or the private
key (key file, keystore, systemd credential or variable) with the API
secret and passphrase, and builds the order signer from them. It prints
the account's address, never a key or secret. With exchange.embedded_sim
or --dry-run, mmbot run needs no account and none is read.

It exits 0 when everything is good, 1 otherwise, after listing every
problem.`

const configCheckExample = `  mmbot config check -c configs/demo.toml
  mmbot config check -c /etc/mmbot/mmbot.toml
  MMBOT_RISK_MAX_POSITION=300 mmbot config check -c mmbot.toml --set strategy.cycle=2s
  mmbot config check -c mmbot.toml --dry-run    # as for mmbot run --dry-run: no account`

func newConfigCheckCmd(e *env) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:     "check -c mmbot.toml [flags]",
		Short:   "print the effective configuration with sources; check it and the account",
		Long:    configCheckLong,
		Example: configCheckExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	configs.RegisterFlags(fs)
	fs.BoolVar(&dryRun, "dry-run", false, "check for mmbot run --dry-run, which needs no account")
	cmd.RunE = func(*cobra.Command, []string) error { return checkConfig(e, fs, dryRun) }
	return cmd
}

// configCheck is what config check found.
type configCheck struct {
	listed   bool // the settings were printed
	problems []string
	warnings []string
	notes    []string
}

// checkConfig runs "mmbot config check" once its flags are parsed into fs.
func checkConfig(e *env, fs *pflag.FlagSet, dryRun bool) error {
	var c configCheck
	cfg, settings, err := configs.LoadWithSources(configs.LoadOptions{Environ: daemon.ConfigEnviron(e.environ), Flags: fs})
	var ve *configs.ValidationError
	switch {
	case err == nil:
	case cfg != nil && errors.As(err, &ve):
		source := map[string]configs.Source{}
		for _, s := range settings {
			source[s.Key] = s.Source
		}
		for _, p := range ve.Problems {
			c.problems = append(c.problems, fmt.Sprintf("%s = %s (%s): %s", p.Key, p.Value, source[p.Key], p.Rule))
		}
	default:
		c.problems = append(c.problems, errorLines(err)...)
	}
	if cfg != nil {
		path := ""
		if f := fs.Lookup(configs.FlagConfig); f != nil {
			path = f.Value.String()
		}
		if err := writeSettings(e.stdout, path, settings); err != nil {
			return err
		}
		c.listed = true
		c.checkExchange(cfg)
		c.checkMarkets(cfg)
		c.checkGuard(cfg)
		c.checkAccount(e, cfg, dryRun)
	}
	return c.report(e.stdout)
}

// checkExchange notes the exchange URLs mmbot run would use: the
// configured ones, with those left empty taken from the credentials file.
func (c *configCheck) checkExchange(cfg *configs.Config) {
	if cfg.Exchange.EmbeddedSim {
		c.notes = append(c.notes, "exchange: the embedded simulated exchange (exchange.embedded_sim) on a free loopback port")
		return
	}
	urls, fromFile, err := assemble.ConfiguredURLs(cfg)
	if err != nil {
		c.problems = append(c.problems, errorLines(err)...)
		return
	}
	note := fmt.Sprintf("exchange: data %s, catalog %s, clob %s", assemble.SafeURL(urls.Data), assemble.SafeURL(urls.Catalog), assemble.SafeURL(urls.CLOB))
	if len(fromFile) > 0 {
		note += fmt.Sprintf(" (%s from account.credentials_file %s)", strings.Join(fromFile, ", "), cfg.Account.CredentialsFile)
	}
	c.notes = append(c.notes, note)
}

// checkMarkets reports a configuration that selects no market: mmbot run
// refuses it (validation leaves that check to run).
func (c *configCheck) checkMarkets(cfg *configs.Config) {
	m := &cfg.Markets
	if len(m.ConditionIDs) == 0 && len(m.Slugs) == 0 && !m.Auto.Enabled {
		c.problems = append(c.problems, "markets: none selected: mmbot run needs markets.condition_ids, markets.slugs or markets.auto.enabled")
	}
}

// checkGuard reports a loop guard mmbot run refuses (guardConfig:
// strategy.guard.max_cycle_gap under two cycles; validation leaves that
// check to run, since backtests run no guard).
func (c *configCheck) checkGuard(cfg *configs.Config) {
	if _, err := assemble.GuardConfig(cfg); err != nil {
		c.problems = append(c.problems, strings.TrimPrefix(err.Error(), "configuration: "))
	}
}

// checkAccount reads the account as mmbot run does (loadAccount, newSigner)
// and notes its address, or lists why it cannot be read.
func (c *configCheck) checkAccount(e *env, cfg *configs.Config, dryRun bool) {
	switch {
	case cfg.Exchange.EmbeddedSim:
		c.notes = append(c.notes, "account: none read: the embedded simulated exchange (exchange.embedded_sim) creates one")
		return
	case dryRun:
		c.notes = append(c.notes, "account: none read: --dry-run needs none")
		return
	}
	acct, err := assemble.LoadAccount(cfg, e.getenv, func(w string) { c.warnings = append(c.warnings, w) })
	if err != nil {
		for _, line := range errorLines(err) {
			c.problems = append(c.problems, "account: "+line)
		}
		return
	}
	sgn, _, err := assemble.NewSigner(cfg, acct)
	if err != nil {
		for _, line := range errorLines(err) {
			c.problems = append(c.problems, "account: "+line)
		}
		return
	}
	from := "the key and API credential sources of [account]"
	if cfg.Account.CredentialsFile != "" {
		from = "account.credentials_file " + cfg.Account.CredentialsFile
	}
	c.notes = append(c.notes, fmt.Sprintf("account: address %s, maker %s, signature type %d, API key [redacted] (read from %s)",
		sgn.Address(), sgn.Maker(), acct.SignatureType(), from))
}

// report prints the notes, warnings and problems, and returns an error
// when there is a problem.
func (c *configCheck) report(w io.Writer) error {
	var b strings.Builder
	if c.listed {
		b.WriteString("\n")
	}
	for _, n := range c.notes {
		fmt.Fprintf(&b, "%s\n", n)
	}
	for _, n := range c.warnings {
		fmt.Fprintf(&b, "warning: %s\n", n)
	}
	if len(c.problems) == 0 {
		b.WriteString("ok: no problem found\n")
	} else {
		fmt.Fprintf(&b, "%s:\n", plural(len(c.problems), "problem"))
		for _, p := range c.problems {
			fmt.Fprintf(&b, "  %s\n", p)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if len(c.problems) > 0 {
		return fmt.Errorf("%s (listed above)", plural(len(c.problems), "problem"))
	}
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// errorLines splits err into one line per error it joins (errors.Join, at
// any depth) and per line of each.
func errorLines(err error) []string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var lines []string
		for _, e := range j.Unwrap() {
			lines = append(lines, errorLines(e)...)
		}
		return lines
	}
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// settingsValueWidth is the widest value that keeps its source comment in
// the aligned column; a longer one (an array) has the comment right after it.
const settingsValueWidth = 40

// writeSettings prints every key as `key = value  # source`, aligned, with a
// blank line between the top-level sections.
func writeSettings(w io.Writer, file string, settings []configs.Setting) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if file == "" {
		file = "none"
	}
	fmt.Fprintf(tw, "# the configuration mmbot run would use: defaults < file (%s) < environment < flags\n", file)
	section := ""
	for _, s := range settings {
		sec, _, _ := strings.Cut(s.Key, ".")
		if sec != section {
			fmt.Fprintln(tw)
			section = sec
		}
		if len(s.Value) > settingsValueWidth {
			// Fewer cells end tabwriter's block: the other rows stay narrow.
			fmt.Fprintf(tw, "%s\t= %s  # %s\n", s.Key, s.Value, s.Source)
			continue
		}
		fmt.Fprintf(tw, "%s\t= %s\t# %s\n", s.Key, s.Value, s.Source)
	}
	return tw.Flush()
}
