package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mmbot/mmbot/backtest/report"
	"github.com/mmbot/mmbot/backtest/sweep"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/internal/atomicfile"
)

// backtestShard is the shard of the sweep that this invocation runs.
type backtestShard struct {
	sweep.Shard
	from string // where the index came from: "--shard", "JOB_COMPLETION_INDEX=2", ...
}

// resolveShard reads --shard (and, for auto, the scheduler's environment);
// nil when the flag is not given: the environment alone never shards.
func resolveShard(e *env, bf *backtestFlags, params []sweep.Param) (*backtestShard, error) {
	if bf.shard == "" {
		return nil, nil
	}
	if len(params) == 0 {
		return nil, usagef("--shard needs --sweep: it runs one slice of the sweep's grid")
	}
	f, err := sweep.ParseShardFlag(bf.shard)
	if err != nil {
		return nil, usagef("--%v", err)
	}
	s, from, err := f.Resolve(e.getenv)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return &backtestShard{Shard: s, from: from}, nil
}

// fileDigest is "sha256:" and the hex SHA-256 of the file's bytes.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("recording %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// notInDigest lists the configuration keys (or, ending in a dot, the
// sections) that a backtest never reads and that may differ from machine
// to machine; every other key is part of a sweep's identity.
func notInDigest() []string {
	return []string{"log.", "metrics.", "account.", "state.path", "state.lock_timeout"}
}

// configSettings are the lines of what the sweep's runs depend on besides
// the recording, the grid and the seed: "key = value" for every
// configuration key but those of notInDigest (the effective value, secrets
// as [redacted], whatever source set it), then the fill model, the
// latencies and the sampling interval in effect. configDigest is their
// digest.
func (s *backtestSetup) configSettings(interval time.Duration) ([]string, error) {
	opts, err := s.loadOptions(nil)
	if err != nil {
		return nil, err
	}
	_, settings, err := configs.LoadWithSources(opts)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	var lines []string
	for _, st := range settings {
		skip := false
		for _, p := range notInDigest() {
			skip = skip || st.Key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(st.Key, p))
		}
		if !skip {
			lines = append(lines, st.Key+" = "+st.Value)
		}
	}
	// The fill model and latencies in effect (the flags, else [backtest]),
	// so that --fill-model queue and the default queue are one sweep.
	rs, err := baseReplaySettings(s.cfg, s.flags)
	if err != nil {
		return nil, err
	}
	return append(lines, "fill model = "+rs.matcher.Mode.String(), "latency = "+rs.matcher.Latency.String(),
		"interval = "+interval.String()), nil
}

// configDigest is "sha256:" and the hex SHA-256 of the lines.
func configDigest(lines []string) string {
	h := sha256.New()
	io.WriteString(h, "mmbot sweep configuration 1\n")
	for _, l := range lines {
		io.WriteString(h, l+"\n")
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// shardBase names a shard's files in --out, without the extension:
// sweep-shard-I-of-N.
func shardBase(s sweep.Shard) string { return fmt.Sprintf("sweep-shard-%d-of-%d", s.Index, s.Count) }

// shardLine says which shard ran and which combinations it holds.
func shardLine(sh *backtestShard, runs, grid int) string {
	return fmt.Sprintf("shard %s (%s): runs k with k mod %d = %d, %d of the sweep's %d combinations",
		sh.Shard, sh.from, sh.Count, sh.Index, runs, grid)
}

// writeShard prints a shard's rows, after the line that names the shard
// (or, with --json, its shard document), and with --out writes
// sweep-shard-I-of-N.csv, .txt and, last, .json (the shard document that
// mmbot backtest merge reads). It fails when a combination failed.
func writeShard(w io.Writer, bf *backtestFlags, sh *backtestShard, part *sweep.Part, grid int) error {
	keys := part.Sweep.Keys()
	base := shardBase(sh.Shard)
	if bf.out != "" {
		err := saveSweepTables(bf.out, base, keys, part.Rows)
		if err == nil {
			err = atomicfile.WriteFile(filepath.Join(bf.out, base+".json"), 0o644, func(w io.Writer) error { return report.WriteSweepShard(w, part) })
		}
		if err != nil {
			return fmt.Errorf("sweep shard %s: %w", sh.Shard, err)
		}
	}
	if bf.json {
		if err := report.WriteSweepShard(w, part); err != nil {
			return err
		}
		return sweepFailures(part.Rows)
	}
	if _, err := fmt.Fprintf(w, "%s\n\n", shardLine(sh, len(part.Rows), grid)); err != nil {
		return err
	}
	if err := report.WriteSweepTable(w, keys, part.Rows); err != nil {
		return err
	}
	if bf.out != "" {
		if _, err := fmt.Fprintf(w, "\nshard: %s; once every shard ran: mmbot backtest merge %s --out %s\n",
			filepath.Join(bf.out, base+".json"), bf.out, bf.out); err != nil {
			return err
		}
	}
	return sweepFailures(part.Rows)
}

// identity is the identity of the sweep of params over the recording at
// data, with the sampling interval the runs used.
func (s *backtestSetup) identity(params []sweep.Param, data string, interval time.Duration) (sweep.Identity, error) {
	id := sweep.Identity{Params: params, Seed: s.flags.seed, Build: buildVersion(version)}
	var err error
	if id.Data, err = fileDigest(data); err != nil {
		return id, err
	}
	if id.Settings, err = s.configSettings(interval); err != nil {
		return id, err
	}
	id.Config = configDigest(id.Settings)
	return id, nil
}
