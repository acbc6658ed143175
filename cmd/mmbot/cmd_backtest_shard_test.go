package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// runBtEnv runs mmbot in-process with the environment vars (and nothing
// else) and returns its exit status and outputs.
func runBtEnv(vars map[string]string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	sort.Strings(environ)
	e := &env{ctx: context.Background(), stdout: &out, stderr: &errb, stdin: strings.NewReader(""),
		getenv: func(k string) string { return vars[k] }, environ: environ}
	code := runMain(e, args)
	return code, out.String(), errb.String()
}

// sameFiles fails unless every name has the same bytes in dirs a and b.
func sameFiles(t *testing.T, a, b string, names ...string) {
	t.Helper()
	for _, name := range names {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs:\n%s\n--- against ---\n%s", name, x, y)
		}
	}
}

// shardSweepArgs is a sweep of 6 combinations over the test recording.
func shardSweepArgs(cfg, rec string) []string {
	return []string{"backtest", "-c", cfg, "--data", rec, "--sweep", "offset=0.01,0.02", "--sweep", "levels=1,2,3", "--workers", "1"}
}

// Four shards, their index from --shard, a Kubernetes Indexed Job and a
// Slurm array, run in-process into one directory and merged, give the
// bytes of the sweep run whole: sweep.csv, sweep.txt, sweep.json, the
// table and the JSON printed.
func TestBacktestShardsMergeInProcess(t *testing.T) {
	t.Parallel()
	rec, cfg := btSetup(t, btConfig)
	args := shardSweepArgs(cfg, rec)
	whole, shards, merged := t.TempDir(), t.TempDir(), t.TempDir()
	code, table, stderr := runBt(append(args, "--out", whole)...)
	if code != 0 {
		t.Fatalf("whole sweep: exit %d: %s", code, stderr)
	}
	// Shards 2 and 3 print their shard document (--json), the others the
	// line that names them and their table.
	printed := map[int]string{}
	for i, sh := range []struct {
		flag  string
		vars  map[string]string
		first string // the first line printed
	}{
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "0"}, "shard 0/4 (JOB_COMPLETION_INDEX=0): runs k with k mod 4 = 0, 2 of the sweep's 6 combinations"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"},
			"shard 1/4 (SLURM_ARRAY_TASK_ID=2): runs k with k mod 4 = 1, 2 of the sweep's 6 combinations"},
		// The flag wins over the environment.
		{"2/4", map[string]string{"JOB_COMPLETION_INDEX": "0"}, "{"},
		{"3/4", nil, "{"},
	} {
		a := append(args, "--shard", sh.flag, "--out", shards)
		if sh.first == "{" {
			a = append(a, "--json")
		}
		code, out, stderr := runBtEnv(sh.vars, a...)
		if code != 0 {
			t.Fatalf("--shard %s: exit %d: %s", sh.flag, code, stderr)
		}
		if first, _, _ := strings.Cut(out, "\n"); first != sh.first {
			t.Errorf("--shard %s printed %q first, want %q", sh.flag, first, sh.first)
		}
		printed[i] = out
	}
	entries, err := os.ReadDir(shards)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	want := "sweep-shard-0-of-4.csv sweep-shard-0-of-4.json sweep-shard-0-of-4.txt sweep-shard-1-of-4.csv sweep-shard-1-of-4.json sweep-shard-1-of-4.txt " +
		"sweep-shard-2-of-4.csv sweep-shard-2-of-4.json sweep-shard-2-of-4.txt sweep-shard-3-of-4.csv sweep-shard-3-of-4.json sweep-shard-3-of-4.txt"
	if strings.Join(names, " ") != want {
		t.Errorf("the shards wrote %q, want %q", names, want)
	}
	code, mergedTable, stderr := runBt("backtest", "merge", shards, "--out", merged)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	sameFiles(t, whole, merged, "sweep.csv", "sweep.txt", "sweep.json")
	if mergedTable != table {
		t.Errorf("merge printed\n%s\nthe whole sweep\n%s", mergedTable, table)
	}
	code, mergedJSON, stderr := runBt("backtest", "merge", shards, "--json")
	if js, err := os.ReadFile(filepath.Join(whole, "sweep.json")); code != 0 || err != nil || mergedJSON != string(js) {
		t.Errorf("merge --json: exit %d (%s), %v:\n%s\nwant\n%s", code, stderr, err, mergedJSON, js)
	}
	// What --shard --json printed is the shard's file: the printed
	// documents merged with the files of the other shards, the same sweep.
	files := []string{filepath.Join(shards, "sweep-shard-0-of-4.json"), filepath.Join(shards, "sweep-shard-1-of-4.json")}
	for i := 2; i < 4; i++ {
		name := fmt.Sprintf("sweep-shard-%d-of-4.json", i)
		if b, err := os.ReadFile(filepath.Join(shards, name)); err != nil || string(b) != printed[i] {
			t.Errorf("--shard %d/4 --json printed another document than %s (%v):\n%s", i, name, err, printed[i])
		}
		files = append(files, filepath.Join(t.TempDir(), "printed.json"))
		if err := os.WriteFile(files[i], []byte(printed[i]), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, stderr := runBt(append([]string{"backtest", "merge"}, files...)...); code != 0 || out != table {
		t.Errorf("merge of the printed shards: exit %d (%s):\n%s", code, stderr, out)
	}
}

// shardEnv is this process's environment without what would shard or
// configure the binary by itself.
func shardEnv(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MMBOT_") && !strings.HasPrefix(kv, "SLURM_") && !strings.HasPrefix(kv, "JOB_COMPLETION_INDEX=") {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// Four shards run as four processes of the mmbot binary at once (as four
// pods of an Indexed Job would, each with its JOB_COMPLETION_INDEX, into
// one volume), merged by a fifth: the bytes of the same sweep run in one
// process.
func TestBacktestShardsAsProcesses(t *testing.T) {
	t.Parallel()
	bin := needDaemon(t)
	rec, cfg := btSetup(t, btConfig)
	args := shardSweepArgs(cfg, rec)
	run := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return out.String(), fmt.Errorf("mmbot %s: %w: %s", strings.Join(args, " "), err, errb.String())
		}
		return out.String(), nil
	}
	whole, shards, merged := t.TempDir(), t.TempDir(), t.TempDir()
	table, err := run(shardEnv(), append(args, "--out", whole)...)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = run(shardEnv(fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)), append(args, "--shard", "auto/4", "--out", shards)...)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mergedTable, err := run(shardEnv(), "backtest", "merge", shards, "--out", merged)
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, whole, merged, "sweep.csv", "sweep.txt", "sweep.json")
	if mergedTable != table {
		t.Errorf("merge printed\n%s\nthe whole sweep\n%s", mergedTable, table)
	}
}

// The merge refuses shards of different sweeps, a missing and a duplicate
// shard; the configuration keys a backtest never reads, and where a value
// came from, do not make another sweep.
func TestBacktestMergeRefuses(t *testing.T) {
	t.Parallel()
	rec, cfg := btSetup(t, btConfig)
	// Two combinations in three shards: shard 2/3 is empty and costs no
	// replay.
	args := []string{"backtest", "-c", cfg, "--data", rec, "--sweep", "levels=1,2", "--workers", "1"}
	shard := func(t *testing.T, vars map[string]string, flag string, extra ...string) string {
		t.Helper()
		dir := t.TempDir()
		a := append(append(args, "--shard", flag, "--out", dir), extra...)
		if code, _, stderr := runBtEnv(vars, a...); code != 0 {
			t.Fatalf("%q: exit %d: %s", a, code, stderr)
		}
		i, n, _ := strings.Cut(flag, "/")
		return filepath.Join(dir, "sweep-shard-"+i+"-of-"+n+".json")
	}
	s0, s1, s2 := shard(t, nil, "0/3"), shard(t, nil, "1/3"), shard(t, nil, "2/3")
	noShards := t.TempDir()
	if err := os.WriteFile(filepath.Join(noShards, "sweep.json"), []byte("[]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files []string
		msg   string // "" for success
	}{
		{"all three", []string{s0, s1, s2}, ""},
		{"a directory", []string{filepath.Dir(s0), s1, s2}, ""},
		{"log level, state path and environment", []string{s0, s1,
			shard(t, map[string]string{"MMBOT_STRATEGY_CYCLE": "1s", "MMBOT_METRICS_LISTEN": "127.0.0.1:9999"}, "2/3", "--log-level", "debug", "--state-path", "x.db")}, ""},
		{"missing", []string{s0, s2}, "missing shard: have 2 of 3 shards; missing 1"},
		{"duplicate", []string{s0, s1, s2, s1}, "duplicate shard: " + s1 + " and " + s1 + " are both shard 1/3"},
		{"other seed", []string{s0, s1, shard(t, nil, "2/3", "--seed", "2")}, `shards of different sweeps: ` + s0 + ` and `},
		{"other configuration", []string{s0, s1, shard(t, nil, "2/3", "--set", "risk.max_position=200")},
			`shards of different sweeps: ` + s0 + ` and `},
		{"other environment", []string{s0, s1, shard(t, map[string]string{"MMBOT_RISK_MAX_POSITION": "200"}, "2/3")},
			`: configuration "risk.max_position = \"300\"" against "risk.max_position = \"200\""`},
		{"other latency", []string{s0, s1, shard(t, nil, "2/3", "--latency-order", "60ms")},
			`configuration "latency = order 50ms, cancel 50ms, data 20ms" against "latency = order 60ms, cancel 50ms, data 20ms"`},
		{"the default fill model named", []string{s0, s1, shard(t, nil, "2/3", "--fill-model", "queue", "--latency-order", "50ms")}, ""},
		{"other grid", []string{s0, s1, shard(t, nil, "2/3", "--sweep", "offset=0.01")}, `grid "levels=1,2" against "levels=1,2 offset=0.01"`},
		{"other count", []string{s0, s1, shard(t, nil, "3/4")}, "not the same number of shards"},
		{"not a shard", []string{s0, s1, filepath.Join(noShards, "sweep.json")}, "sweep.json: not a sweep shard"},
		{"no shard in the directory", []string{noShards}, "holds no sweep-shard-*-of-*.json"},
		{"no such file", []string{s0 + ".gone"}, "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runBt(append([]string{"backtest", "merge"}, tc.files...)...)
			if tc.msg == "" {
				if code != 0 {
					t.Errorf("exit %d: %s", code, stderr)
				}
				return
			}
			if code != 1 || !strings.Contains(stderr, tc.msg) || !strings.HasPrefix(stderr, "mmbot backtest merge: ") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line with %q", code, stderr, tc.msg)
			}
		})
	}
	// Other bytes of the recording (the same events, and an empty gzip
	// member after them) are another sweep.
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var empty bytes.Buffer
	if err := gzip.NewWriter(&empty).Close(); err != nil {
		t.Fatal(err)
	}
	rec2 := filepath.Join(t.TempDir(), "rec2.jsonl.gz")
	if err := os.WriteFile(rec2, append(b, empty.Bytes()...), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, _, stderr := runBt("backtest", "-c", cfg, "--data", rec2, "--sweep", "levels=1,2", "--shard", "2/3", "--out", dir)
	if code == 0 {
		code, _, stderr = runBt("backtest", "merge", s0, s1, filepath.Join(dir, "sweep-shard-2-of-3.json"))
	}
	if code != 1 || !strings.Contains(stderr, "shards of different sweeps") || !strings.Contains(stderr, ": recording \"sha256:") {
		t.Errorf("another recording: exit %d, %s", code, stderr)
	}
}

func TestBacktestShardErrors(t *testing.T) {
	rec, cfg := btSetup(t, btConfig)
	sw := []string{"--sweep", "levels=1,2"}
	for _, tc := range []struct {
		name string
		args []string
		vars map[string]string
		msg  string
	}{
		{"no sweep", []string{"--shard", "0/2"}, nil, "--shard needs --sweep"},
		{"index out of range", append(sw, "--shard", "2/2"), nil, `--shard "2/2": the index must be from 0 to 1`},
		{"no count", append(sw, "--shard", "1"), nil, `--shard "1": want i/n (0 <= i < n), auto/n or auto`},
		{"auto without a scheduler", append(sw, "--shard", "auto/2"), nil, "neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID"},
		{"kubernetes without a count", append(sw, "--shard", "auto"), map[string]string{"JOB_COMPLETION_INDEX": "1"}, "use --shard auto/N with N the Job's completions"},
		{"kubernetes index too high", append(sw, "--shard", "auto/2"), map[string]string{"JOB_COMPLETION_INDEX": "2"}, "JOB_COMPLETION_INDEX=2 is out of range for 2 shards"},
		{"slurm count differs", append(sw, "--shard", "auto/2"), map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3"},
			"SLURM_ARRAY_TASK_COUNT=3 but --shard auto/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runBtEnv(tc.vars, append([]string{"backtest", "-c", cfg, "--data", rec}, tc.args...)...)
			if code != 2 || out != "" || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, stderr, tc.msg)
			}
		})
	}
	code, _, stderr := runBt("backtest", "merge")
	if code != 2 || !strings.Contains(stderr, "mmbot backtest merge: no shards") {
		t.Errorf("merge without arguments: exit %d, %q", code, stderr)
	}
	code, _, stderr = runBt("backtest", "merg")
	if code != 2 || stderr != "mmbot backtest: unknown backtest subcommand \"merg\"\ndid you mean \"merge\"?\n" {
		t.Errorf("backtest merg: exit %d, %q", code, stderr)
	}
}
