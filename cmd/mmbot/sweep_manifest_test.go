package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mmbot/mmbot/backtest/sweep"
)

// k8sJob is the part of a Kubernetes batch/v1 Job that the manifests in
// configs/kubernetes use, field names as in the API: decoded with
// KnownFields, a misspelt field fails the test (a field added to a
// manifest must be added here, with its API name).
type k8sJob struct {
	APIVersion string      `yaml:"apiVersion"`
	Kind       string      `yaml:"kind"`
	Metadata   k8sMetadata `yaml:"metadata"`
	Spec       struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          *int   `yaml:"completions"`
		Parallelism          *int   `yaml:"parallelism"`
		BackoffLimit         *int   `yaml:"backoffLimit"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		Template             struct {
			Metadata k8sMetadata `yaml:"metadata"`
			Spec     struct {
				RestartPolicy   string `yaml:"restartPolicy"`
				SecurityContext struct {
					RunAsNonRoot bool `yaml:"runAsNonRoot"`
					RunAsUser    int  `yaml:"runAsUser"`
					FSGroup      int  `yaml:"fsGroup"`
				} `yaml:"securityContext"`
				Containers []k8sContainer `yaml:"containers"`
				Volumes    []struct {
					Name      string `yaml:"name"`
					ConfigMap *struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sMetadata struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type k8sContainer struct {
	Name      string   `yaml:"name"`
	Image     string   `yaml:"image"`
	Command   []string `yaml:"command"`
	Args      []string `yaml:"args"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

func readJob(t *testing.T, name string) (*k8sJob, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "configs", "kubernetes", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var job k8sJob
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Metadata.Name == "" {
		t.Errorf("%s: %s %s %q, want a batch/v1 Job with a name", name, job.APIVersion, job.Kind, job.Metadata.Name)
	}
	if len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", name, len(job.Spec.Template.Spec.Containers))
	}
	return &job, b
}

// parsedCommand is an mmbot command line parsed by the command's own flag
// set.
type parsedCommand struct {
	path  string // "backtest", "backtest merge"
	args  []string
	value func(flag string) string
	multi func(flag string) []string
}

// parseMmbot parses argv ("mmbot", "backtest", ...) as mmbot would: it
// fails the test unless every flag is one of the command's and, for
// backtest, no argument is left over.
func parseMmbot(t *testing.T, argv []string) parsedCommand {
	t.Helper()
	if len(argv) < 2 || argv[0] != "mmbot" {
		t.Fatalf("%q is not an mmbot command", argv)
	}
	root := newRootCmd(&env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	cmd, rest, err := root.Find(argv[1:])
	if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("%q: not a flag of mmbot %s: %v", argv, strings.TrimPrefix(cmd.CommandPath(), "mmbot "), err)
	}
	fs := cmd.Flags()
	p := parsedCommand{path: strings.TrimPrefix(cmd.CommandPath(), "mmbot "), args: fs.Args(),
		value: func(f string) string { return fs.Lookup(f).Value.String() },
		multi: func(f string) []string { v, _ := fs.GetStringArray(f); return v }}
	if err := cmd.ValidateArgs(p.args); err != nil {
		t.Errorf("%q: %v", argv, err)
	}
	return p
}

// checkSweepCommand checks a backtest command of a sharded sweep: its
// sweeps parse with known keys, its shard parses, and it returns the shard.
func checkSweepCommand(t *testing.T, p parsedCommand) sweep.ShardFlag {
	t.Helper()
	if p.path != "backtest" {
		t.Fatalf("mmbot %s, want mmbot backtest", p.path)
	}
	if len(p.multi("sweep")) == 0 || p.value("data") == "" || p.value("out") == "" {
		t.Errorf("no --sweep, --data or --out")
	}
	for _, s := range p.multi("sweep") {
		sp, err := sweep.Parse(s)
		if err == nil {
			err = checkSweepKey(sp.Key)
		}
		if err != nil {
			t.Errorf("--sweep %s: %v", s, err)
		}
	}
	f, err := sweep.ParseShardFlag(p.value("shard"))
	if err != nil {
		t.Errorf("--shard: %v", err)
	}
	return f
}

// under reports whether path is mountPath or below it.
func under(path, mountPath string) bool {
	return path == mountPath || strings.HasPrefix(path, strings.TrimSuffix(mountPath, "/")+"/")
}

// The Indexed Job of docs/backtesting.md runs a real mmbot backtest
// command: every flag is one of its flags, the shard is auto/N with N the
// Job's completions, and the recording, the configuration and the outputs
// are on the pod's volumes. The merge Job reads and writes that volume.
func TestSweepJobManifest(t *testing.T) {
	job, _ := readJob(t, "sweep-job.yaml")
	s := &job.Spec
	if s.CompletionMode != "Indexed" || s.Completions == nil || s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > *s.Completions {
		t.Fatalf("completionMode %q, completions %v, parallelism %v: want an Indexed Job", s.CompletionMode, s.Completions, s.Parallelism)
	}
	if s.BackoffLimitPerIndex != nil && s.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("backoffLimitPerIndex needs restartPolicy Never, not %q", s.Template.Spec.RestartPolicy)
	}
	c := s.Template.Spec.Containers[0]
	p := parseMmbot(t, append(c.Command, c.Args...))
	f := checkSweepCommand(t, p)
	if !f.Auto || f.Count != *s.Completions {
		t.Errorf("--shard %s: want auto/%d (the index from JOB_COMPLETION_INDEX, the count the Job's completions)", p.value("shard"), *s.Completions)
	}
	if w := p.value("workers"); c.Resources.Requests["cpu"] != w {
		t.Errorf("--workers %s but the pod requests %s cpus", w, c.Resources.Requests["cpu"])
	}
	// Every shard must name its index: the pods differ only by it.
	for i := 0; i < *s.Completions; i++ {
		sh, from, err := f.Resolve(func(k string) string {
			if k == sweep.EnvJobIndex {
				return strconv.Itoa(i)
			}
			return ""
		})
		if err != nil || sh.Index != i || !strings.HasPrefix(from, sweep.EnvJobIndex) {
			t.Errorf("pod %d: shard %s from %s, %v", i, sh, from, err)
		}
	}
	vols := map[string]bool{}
	for _, v := range s.Template.Spec.Volumes {
		vols[v.Name] = v.ConfigMap != nil || v.PersistentVolumeClaim != nil
	}
	mountOf := func(path string) (string, bool) {
		for _, m := range c.VolumeMounts {
			if under(path, m.MountPath) {
				if !vols[m.Name] {
					t.Errorf("mount %s: no volume %q", m.MountPath, m.Name)
				}
				return m.Name, m.ReadOnly
			}
		}
		t.Errorf("%s is on no volume of the pod", path)
		return "", false
	}
	mountOf(p.value("config"))
	mountOf(p.value("data"))
	outVol, ro := mountOf(p.value("out"))
	if ro {
		t.Errorf("--out %s is on a read-only mount", p.value("out"))
	}

	merge, _ := readJob(t, "sweep-merge.yaml")
	mc := merge.Spec.Template.Spec.Containers[0]
	mp := parseMmbot(t, append(mc.Command, mc.Args...))
	if mp.path != "backtest merge" || len(mp.args) != 1 || mp.args[0] != p.value("out") || mp.value("out") == "" {
		t.Errorf("merge job: mmbot %s %q --out %s; want mmbot backtest merge %s --out DIR", mp.path, mp.args, mp.value("out"), p.value("out"))
	}
	claim := func(j *k8sJob, vol string) string {
		for _, v := range j.Spec.Template.Spec.Volumes {
			if v.Name == vol && v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
		return ""
	}
	var mergeVol string
	for _, m := range mc.VolumeMounts {
		if under(mp.args[0], m.MountPath) && under(mp.value("out"), m.MountPath) && !m.ReadOnly {
			mergeVol = m.Name
		}
	}
	if c1, c2 := claim(job, outVol), claim(merge, mergeVol); c1 == "" || c1 != c2 {
		t.Errorf("the shards write to claim %q, the merge reads claim %q", c1, c2)
	}
}

// docSection returns the lines of the section of docs/backtesting.md
// under the heading title, up to the next heading of its level or above
// (outside code blocks, where "# " starts a comment).
func docSection(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "backtesting.md"))
	if err != nil {
		t.Fatal(err)
	}
	level := len(strings.Fields(title)[0]) // 3 for "###"
	heading := regexp.MustCompile(`^#{1,` + strconv.Itoa(level) + `} `)
	var out []string
	in, fenced := false, false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
		case !fenced && line == title:
			in = true
			continue
		case !fenced && in && heading.MatchString(line):
			return strings.Join(out, "\n") + "\n"
		}
		if in {
			out = append(out, line)
		}
	}
	if !in {
		t.Fatalf("docs/backtesting.md has no %q", title)
	}
	return strings.Join(out, "\n") + "\n"
}

// The section of docs/backtesting.md on sweeps over many machines shows
// the committed manifests as they are, and its GNU parallel, Slurm and
// merge lines are real commands: every flag exists, and the shards of a
// parallel line are 0 to N-1 of N.
func TestSweepDocCommands(t *testing.T) {
	sec := docSection(t, "### Sweeps on many machines")
	for _, name := range []string{"sweep-job.yaml", "sweep-merge.yaml"} {
		_, b := readJob(t, name)
		if !strings.Contains(sec, "```yaml\n"+string(b)+"```\n") {
			t.Errorf("the section does not show configs/kubernetes/%s as it is", name)
		}
	}
	kinds := map[string]int{}
	fence := "" // the language of the fenced block the line is in
	inFence := false
	for _, raw := range strings.Split(sec, "\n") {
		if strings.HasPrefix(raw, "```") {
			inFence, fence = !inFence, strings.TrimPrefix(raw, "```")
			continue
		}
		// The commands are the lines of the sh blocks and the "$ " lines
		// of the console blocks (the others are their output); the
		// manifests are checked above.
		line := strings.TrimSpace(raw)
		switch {
		case inFence && fence == "sh":
		case inFence && fence == "console" && strings.HasPrefix(line, "$ "):
		default:
			continue
		}
		i := strings.Index(line, "mmbot backtest")
		if i < 0 {
			continue
		}
		cmdline := line[i:]
		for _, op := range []string{" > ", " >> ", " 2>", " | ", " && ", " ; "} { // the shell's, not mmbot's
			cmdline, _, _ = strings.Cut(cmdline, op)
		}
		var values []string
		switch {
		case strings.HasPrefix(line, "parallel "):
			kinds["parallel"]++
			cmdline, vals, ok := strings.Cut(cmdline, " ::: ")
			if !ok {
				t.Fatalf("%q: no ::: list of shards", line)
			}
			values = strings.Fields(vals)
			var shards []sweep.Shard
			for _, v := range values {
				p := parseMmbot(t, strings.Fields(strings.ReplaceAll(cmdline, "{}", v)))
				f := checkSweepCommand(t, p)
				sh, _, err := f.Resolve(nil)
				if err != nil {
					t.Fatalf("%q with {} = %s: %v", line, v, err)
				}
				shards = append(shards, sh)
			}
			for i, sh := range shards {
				if sh.Index != i || sh.Count != len(shards) {
					t.Errorf("%q: the shards are %v; want each of 0/N to N-1/N once, N the number of values after :::", line, shards)
					break
				}
			}
			continue
		case strings.HasPrefix(line, "sbatch "):
			kinds["sbatch"]++
			cmdline = strings.TrimSuffix(strings.TrimSpace(strings.SplitN(cmdline, "#", 2)[0]), "'")
		default:
			cmdline = strings.TrimSpace(strings.SplitN(cmdline, "#", 2)[0])
		}
		p := parseMmbot(t, strings.Fields(cmdline))
		switch p.path {
		case "backtest merge":
			kinds["merge"]++
			if len(p.args) == 0 {
				t.Errorf("%q: merges nothing", line)
			}
		case "backtest":
			kinds["backtest"]++
			if p.value("shard") != "" {
				checkSweepCommand(t, p)
			}
		}
	}
	if kinds["parallel"] == 0 || kinds["sbatch"] == 0 || kinds["merge"] < 2 {
		t.Errorf("the section's command lines: %v; want a GNU parallel line, an sbatch line and merges", kinds)
	}
}
