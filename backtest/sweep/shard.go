package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is the Index-th of Count slices of a grid (0 <= Index < Count):
// combination k belongs to shard k mod Count. Every combination is in
// exactly one shard; a shard may be empty when Count exceeds the grid.
// Dealing the combinations out in turn, rather than cutting the grid into
// ranges, spreads every parameter's values over the shards, so a costly
// value (many levels, a short cycle) does not land on one machine.
type Shard struct {
	Index int
	Count int
}

// MaxShards bounds a shard count: more shards than MaxGrid would all but
// MaxGrid be empty.
const MaxShards = MaxGrid

// String is "i/n".
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// Check returns an error unless 0 <= Index < Count <= MaxShards.
func (s Shard) Check() error {
	if p := s.problem(); p != "" {
		return fmt.Errorf("shard %s: %s", s, p)
	}
	return nil
}

func (s Shard) problem() string {
	switch {
	case s.Count < 1:
		return "the count must be at least 1"
	case s.Count > MaxShards:
		return fmt.Sprintf("more than %d shards", MaxShards)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Sprintf("the index must be from 0 to %d", s.Count-1)
	}
	return ""
}

// Owns reports whether combination k belongs to the shard.
func (s Shard) Owns(k int) bool { return k%s.Count == s.Index }

// Of returns the shard's combinations of combos (a grid from Grid, whose
// Index is the position), in grid order.
func (s Shard) Of(combos []Combo) []Combo {
	var out []Combo
	for i := s.Index; i < len(combos); i += s.Count {
		out = append(out, combos[i])
	}
	return out
}

// ShardFlag is a --shard value before the environment is read: "i/n", or
// "auto/n" and "auto", whose index (and for "auto" the count) come from a
// scheduler's environment (ShardFromEnv).
type ShardFlag struct {
	Auto  bool
	Index int // when !Auto
	Count int // 0: from the environment (only with Auto)
}

// ParseShardFlag parses "i/n", "auto/n" or "auto".
func ParseShardFlag(s string) (ShardFlag, error) {
	is, ns, hasCount := strings.Cut(strings.TrimSpace(s), "/")
	var f ShardFlag
	if strings.TrimSpace(is) == "auto" {
		f.Auto = true
		if !hasCount {
			return f, nil
		}
	} else if !hasCount {
		return f, fmt.Errorf("shard %q: want i/n (0 <= i < n), auto/n or auto", s)
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return f, fmt.Errorf("shard %q: the count %q is not a number", s, ns)
	}
	f.Count = n
	if !f.Auto {
		if f.Index, err = strconv.Atoi(strings.TrimSpace(is)); err != nil {
			return f, fmt.Errorf("shard %q: the index %q is not a number (or auto)", s, is)
		}
	}
	// An auto index is checked once the environment gave it.
	probe := Shard{Index: f.Index, Count: f.Count}
	if f.Auto {
		probe.Index = 0
	}
	if p := probe.problem(); p != "" {
		return f, fmt.Errorf("shard %q: %s", s, p)
	}
	return f, nil
}

// The environment variables ShardFromEnv reads.
const (
	// EnvJobIndex is set by Kubernetes in every pod of an Indexed Job:
	// 0 to completions - 1.
	EnvJobIndex = "JOB_COMPLETION_INDEX"
	// EnvSlurmID and the others are set by Slurm in every task of a job
	// array (sbatch --array=MIN-MAX[:STEP]).
	EnvSlurmID    = "SLURM_ARRAY_TASK_ID"
	EnvSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmStep  = "SLURM_ARRAY_TASK_STEP"
)

// Resolve returns the shard the flag names, reading the index from getenv
// when the flag says auto, and where the index came from ("--shard",
// "JOB_COMPLETION_INDEX=2", "SLURM_ARRAY_TASK_ID=3"). An explicit i/n
// ignores the environment.
//
// A Kubernetes Indexed Job gives the index (JOB_COMPLETION_INDEX) and not
// the count, which "auto/n" must then state (n = the Job's completions). A
// Slurm array task is shard (ID - MIN) / STEP of COUNT; with "auto/n", n
// must equal COUNT. Both schedulers' variables at once are refused.
func (f ShardFlag) Resolve(getenv func(string) string) (Shard, string, error) {
	if !f.Auto {
		s := Shard{Index: f.Index, Count: f.Count}
		return s, "--shard", s.Check()
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	k8s, slurm := getenv(EnvJobIndex), getenv(EnvSlurmID)
	var s Shard
	var from string
	switch {
	case k8s != "" && slurm != "":
		return s, "", fmt.Errorf("--shard auto: both %s and %s are set; give the shard as --shard i/n", EnvJobIndex, EnvSlurmID)
	case k8s != "":
		i, err := envInt(EnvJobIndex, k8s)
		if err != nil {
			return s, "", err
		}
		if f.Count == 0 {
			return s, "", fmt.Errorf("--shard auto: %s gives the index, not the count: use --shard auto/N with N the Job's completions", EnvJobIndex)
		}
		s, from = Shard{Index: i, Count: f.Count}, EnvJobIndex+"="+k8s
		if i >= f.Count {
			return s, from, fmt.Errorf("%s=%d is out of range for %d shards: the Job's completions must be %d, as in --shard auto/%d", EnvJobIndex, i, f.Count, f.Count, f.Count)
		}
	case slurm != "":
		var err error
		if s, err = slurmShard(getenv, f.Count); err != nil {
			return s, "", err
		}
		from = EnvSlurmID + "=" + slurm
	default:
		return s, "", fmt.Errorf("--shard auto: neither %s (a Kubernetes Indexed Job) nor %s (a Slurm array) is set; give the shard as --shard i/n", EnvJobIndex, EnvSlurmID)
	}
	return s, from, s.Check()
}

// slurmShard is the shard of a Slurm array task; count is the flag's (0:
// SLURM_ARRAY_TASK_COUNT).
func slurmShard(getenv func(string) string, count int) (Shard, error) {
	id, err := envInt(EnvSlurmID, getenv(EnvSlurmID))
	if err != nil {
		return Shard{}, err
	}
	lo, err := envInt(EnvSlurmMin, getenv(EnvSlurmMin))
	if err != nil {
		return Shard{}, err
	}
	step := 1
	if v := getenv(EnvSlurmStep); v != "" {
		if step, err = envInt(EnvSlurmStep, v); err != nil {
			return Shard{}, err
		}
		if step == 0 {
			return Shard{}, fmt.Errorf("%s=0: want a step of at least 1", EnvSlurmStep)
		}
	}
	n := count
	if v := getenv(EnvSlurmCount); v != "" {
		c, err := envInt(EnvSlurmCount, v)
		if err != nil {
			return Shard{}, err
		}
		if n == 0 {
			n = c
		} else if c != n {
			return Shard{}, fmt.Errorf("%s=%d but --shard auto/%d: the array must have %d tasks", EnvSlurmCount, c, n, n)
		}
	}
	if n == 0 {
		return Shard{}, fmt.Errorf("--shard auto: %s is not set; use --shard auto/N", EnvSlurmCount)
	}
	off := id - lo
	if off < 0 || off%step != 0 || off/step >= n {
		return Shard{}, fmt.Errorf("%s=%d is not %s=%d plus a multiple of %d below %d×%d: use a plain range, sbatch --array=0-%d",
			EnvSlurmID, id, EnvSlurmMin, lo, step, n, step, n-1)
	}
	return Shard{Index: off / step, Count: n}, nil
}

// envInt parses a non-negative integer from the variable name.
func envInt(name, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a non-negative integer", name, v)
	}
	return n, nil
}
