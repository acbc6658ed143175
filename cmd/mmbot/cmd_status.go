package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/daemon"
	"github.com/mmbot/mmbot/daemon/status"
)

const statusLong = `Asks the running daemon for its status over its loopback HTTP listener
(GET /status on metrics.listen, next to /metrics, /healthz and /readyz) and
prints it: per market the fair value, our best bid and ask, the positions of
both outcomes and the net, the open orders, the PnL (realized and marked),
the collateral it holds, the book age and the last error; then the totals,
the collateral in use against risk.max_collateral_at_risk, the orders and
cancels per second against the exchange's caps, and the kill switch with
its reason.

The address is --addr, else metrics.listen of the configuration, loaded as
mmbot run loads it (the -c file, the MMBOT_* environment, --set; the
default is 127.0.0.1:9464; only the metrics.* keys are checked). On a terminal it prints a table; otherwise, and
with --json, the JSON document the daemon served (docs/operations.md,
"Status of a running daemon", describes every field). When no daemon
answers within --timeout it says so in one line and exits 1.`

const statusExample = `  mmbot status                                  # the default address, 127.0.0.1:9464
  mmbot status -c /etc/mmbot/mmbot.toml
  mmbot status --addr 127.0.0.1:9464 --json | jq '.markets[] | {slug, fair, position}'
  watch -n 2 mmbot status -c mmbot.toml --table`

// statusFlags are the status command's own flags (the config flags come
// from configs.RegisterFlags).
type statusFlags struct {
	addr    string
	asJSON  bool
	table   bool
	timeout time.Duration
}

func newStatusCmd(e *env) *cobra.Command {
	var sf statusFlags
	cmd := &cobra.Command{
		Use:     "status [-c mmbot.toml | --addr host:port] [--json | --table]",
		Short:   "show the status of the running daemon: markets, positions, PnL, rates, kill switch",
		Long:    statusLong,
		Example: statusExample,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	configs.RegisterFlags(fs)
	fs.StringVar(&sf.addr, "addr", "", "the daemon's metrics listener, `host:port` (instead of metrics.listen of the configuration)")
	fs.BoolVar(&sf.asJSON, "json", false, "print the JSON document (the default when stdout is not a terminal)")
	fs.BoolVar(&sf.table, "table", false, "print the table (the default on a terminal)")
	fs.DurationVar(&sf.timeout, "timeout", 5*time.Second, "how long to wait for the daemon's answer")
	cmd.RunE = func(*cobra.Command, []string) error { return showDaemonStatus(e, fs, sf) }
	return cmd
}

// showDaemonStatus runs "mmbot status" once its flags are parsed.
func showDaemonStatus(e *env, fs *pflag.FlagSet, sf statusFlags) error {
	switch {
	case sf.asJSON && sf.table:
		return usagef("--json and --table exclude each other")
	case sf.timeout <= 0:
		return usagef("--timeout must be positive")
	case sf.addr != "" && fs.Changed(configs.FlagConfig):
		return usagef("-c and --addr exclude each other")
	}
	addr, listen := sf.addr, sf.addr
	if addr == "" {
		var err error
		if addr, listen, err = statusAddr(e, fs); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(e.ctx, sf.timeout)
	defer cancel()
	body, err := fetchStatus(ctx, addr)
	if err != nil {
		return describeFetchError(err, addr, listen, sf.timeout)
	}
	var doc status.Status
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("the daemon at %s answered GET /status with a document that is not the status: %w", addr, err)
	}
	if doc.SchemaVersion != status.Schema {
		return fmt.Errorf("the daemon at %s serves status schema %d, this mmbot reads %d: use the daemon's own binary", addr, doc.SchemaVersion, status.Schema)
	}
	if sf.asJSON || (!sf.table && !isTerminal(e.stdout)) {
		_, err := e.stdout.Write(body)
		return err
	}
	return doc.WriteTable(e.stdout, time.Local)
}

// statusAddr returns the address to ask and the metrics.listen it comes
// from: a wildcard host (all interfaces, allowed by metrics.allow_public) is
// asked on loopback.
func statusAddr(e *env, fs *pflag.FlagSet) (addr, listen string, err error) {
	// The rest of the configuration is mmbot run's to check: without a
	// file, the defaults alone lack the exchange's URLs.
	cfg, err := configs.Load(configs.LoadOptions{Environ: daemon.ConfigEnviron(e.environ), Flags: fs, SkipValidate: true})
	if err != nil {
		return "", "", fmt.Errorf("configuration: %w", err)
	}
	var ve *configs.ValidationError
	if errors.As(cfg.Validate(), &ve) {
		mine := &configs.ValidationError{}
		for _, p := range ve.Problems {
			if strings.HasPrefix(p.Key, "metrics.") {
				mine.Problems = append(mine.Problems, p)
			}
		}
		if len(mine.Problems) > 0 {
			return "", "", fmt.Errorf("configuration: %w", mine)
		}
	}
	m := cfg.Metrics
	if !m.Enabled {
		return "", "", errors.New("metrics.enabled = false: the daemon serves no status; enable it, or pass --addr")
	}
	host, port, err := net.SplitHostPort(m.Listen)
	if err != nil {
		return "", "", fmt.Errorf("metrics.listen %q: %w", m.Listen, err)
	}
	if port == "0" {
		return "", "", fmt.Errorf("metrics.listen = %q lets the daemon pick a free port: pass --addr with the address it logged (\"metrics, /healthz and /readyz\")", m.Listen)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return net.JoinHostPort(host, port), m.Listen, nil
}

// errStatusAnswer is an answer other than 200 to GET /status.
type errStatusAnswer struct {
	code int
	body string
}

func (e *errStatusAnswer) Error() string {
	return fmt.Sprintf("answered %d %s to GET /status: %s", e.code, http.StatusText(e.code), e.body)
}

// fetchStatus gets the status document from the daemon at addr.
func fetchStatus(ctx context.Context, addr string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/status", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	// No proxy: the listener is local, and HTTP_PROXY must not reroute it.
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &errStatusAnswer{code: resp.StatusCode, body: string(bytes.TrimSpace(body[:min(len(body), 200)]))}
	}
	return body, nil
}

// noDaemonError is a status request that reached no daemon.
type noDaemonError struct {
	addr, why, listen string
	err               error
}

func (e *noDaemonError) Error() string {
	return fmt.Sprintf("no daemon answers at %s (%s): is mmbot run running with metrics.listen = %s?", e.addr, e.why, strconv.Quote(e.listen))
}

func (e *noDaemonError) Unwrap() error { return e.err }

// describeFetchError turns a failed GET /status into the one line the
// operator reads: no daemon, or a daemon that answered something else.
func describeFetchError(err error, addr, listen string, timeout time.Duration) error {
	var ans *errStatusAnswer
	if errors.As(err, &ans) {
		hint := ""
		if ans.code == http.StatusNotFound {
			hint = " (a daemon older than mmbot status, or not mmbot?)"
		}
		return fmt.Errorf("the daemon at %s %w%s", addr, ans, hint)
	}
	why := err.Error()
	var op *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "connection refused"
	case errors.Is(err, context.DeadlineExceeded):
		why = "no answer within " + timeout.String()
	case errors.As(err, &op) && op.Err != nil:
		why = op.Err.Error()
	}
	return &noDaemonError{addr: addr, why: why, listen: listen, err: err}
}
