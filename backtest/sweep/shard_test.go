package sweep

import (
	"strconv"
	"strings"
	"testing"
)

// Every combination is in exactly one shard, whatever the count, and a
// shard's combinations are those whose index is the shard's mod n.
func TestShardsCoverTheGrid(t *testing.T) {
	g, err := Grid([]Param{{"a", []string{"1", "2", "3"}}, {"b", []string{"x", "y", "z", "w"}}})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 15; n++ {
		seen := make([]int, len(g))
		for i := 0; i < n; i++ {
			s := Shard{Index: i, Count: n}
			prev := -1
			for _, c := range s.Of(g) {
				seen[c.Index]++
				if c.Index%n != i || !s.Owns(c.Index) || c.Index <= prev {
					t.Errorf("shard %s holds run %d (after %d)", s, c.Index, prev)
				}
				prev = c.Index
			}
		}
		for k, times := range seen {
			if times != 1 {
				t.Errorf("%d shards: run %d is in %d shards", n, k, times)
			}
		}
	}
	if got := (Shard{Index: 13, Count: 14}).Of(g); len(got) != 0 {
		t.Errorf("shard 13/14 of 12 combinations: %v, want none", got)
	}
}

func TestParseShardFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ShardFlag
		err  string // "" for success
	}{
		{"0/4", ShardFlag{Index: 0, Count: 4}, ""},
		{" 3 / 4 ", ShardFlag{Index: 3, Count: 4}, ""},
		{"0/1", ShardFlag{Index: 0, Count: 1}, ""},
		{"auto/8", ShardFlag{Auto: true, Count: 8}, ""},
		{"auto", ShardFlag{Auto: true}, ""},
		{"4/4", ShardFlag{}, "the index must be from 0 to 3"},
		{"-1/4", ShardFlag{}, "the index must be from 0 to 3"},
		{"1/0", ShardFlag{}, "the count must be at least 1"},
		{"auto/0", ShardFlag{}, "the count must be at least 1"},
		{"0/10001", ShardFlag{}, "more than 10000 shards"},
		{"2", ShardFlag{}, "want i/n"},
		{"", ShardFlag{}, "want i/n"},
		{"x/4", ShardFlag{}, `the index "x" is not a number`},
		{"1/four", ShardFlag{}, `the count "four" is not a number`},
		{"1/2/3", ShardFlag{}, `the count "2/3" is not a number`},
	} {
		got, err := ParseShardFlag(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %+v, %v; want an error with %q", tc.in, got, err, tc.err)
		}
	}
}

func TestShardFromEnvironment(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		name string
		flag string
		env  func(string) string
		want string // "i/n from", or the error's words
		ok   bool
	}{
		{"explicit ignores the environment", "1/4", env(EnvJobIndex, "3", EnvSlurmID, "2"), "1/4 --shard", true},
		{"kubernetes", "auto/4", env(EnvJobIndex, "2"), "2/4 JOB_COMPLETION_INDEX=2", true},
		{"kubernetes needs the count", "auto", env(EnvJobIndex, "2"), "use --shard auto/N", false},
		{"kubernetes index out of range", "auto/4", env(EnvJobIndex, "4"), "JOB_COMPLETION_INDEX=4 is out of range for 4 shards", false},
		{"kubernetes garbage", "auto/4", env(EnvJobIndex, "two"), `JOB_COMPLETION_INDEX="two": want a non-negative integer`, false},
		{"slurm from 1", "auto", env(EnvSlurmID, "3", EnvSlurmMin, "1", EnvSlurmCount, "4"), "2/4 SLURM_ARRAY_TASK_ID=3", true},
		{"slurm with step", "auto", env(EnvSlurmID, "20", EnvSlurmMin, "10", EnvSlurmCount, "3", EnvSlurmStep, "5"), "2/3 SLURM_ARRAY_TASK_ID=20", true},
		{"slurm with the count in the flag", "auto/4", env(EnvSlurmID, "0", EnvSlurmMin, "0"), "0/4 SLURM_ARRAY_TASK_ID=0", true},
		{"slurm count disagrees", "auto/4", env(EnvSlurmID, "0", EnvSlurmMin, "0", EnvSlurmCount, "5"), "SLURM_ARRAY_TASK_COUNT=5 but --shard auto/4", false},
		{"slurm without min", "auto", env(EnvSlurmID, "0", EnvSlurmCount, "4"), `SLURM_ARRAY_TASK_MIN="": want a non-negative integer`, false},
		{"slurm without count", "auto", env(EnvSlurmID, "0", EnvSlurmMin, "0"), "SLURM_ARRAY_TASK_COUNT is not set", false},
		{"slurm id off the range", "auto", env(EnvSlurmID, "7", EnvSlurmMin, "1", EnvSlurmCount, "3"), "use a plain range, sbatch --array=0-2", false},
		{"slurm id off the step", "auto", env(EnvSlurmID, "12", EnvSlurmMin, "10", EnvSlurmCount, "3", EnvSlurmStep, "5"), "plus a multiple of 5", false},
		{"both schedulers", "auto/4", env(EnvJobIndex, "1", EnvSlurmID, "1"), "both JOB_COMPLETION_INDEX and SLURM_ARRAY_TASK_ID are set", false},
		{"no scheduler", "auto/4", env(), "neither JOB_COMPLETION_INDEX", false},
		{"nil getenv", "auto/4", nil, "neither JOB_COMPLETION_INDEX", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseShardFlag(tc.flag)
			if err != nil {
				t.Fatal(err)
			}
			s, from, err := f.Resolve(tc.env)
			if tc.ok {
				if err != nil || s.String()+" "+from != tc.want {
					t.Errorf("%s %s, %v; want %s", s, from, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s, %v; want an error with %q", s, from, err, tc.want)
			}
		})
	}
}

func FuzzParseShardFlag(f *testing.F) {
	for _, s := range []string{"0/4", "auto/8", "auto", "3/2", "x/y", "1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fl, err := ParseShardFlag(s)
		if err != nil {
			return
		}
		if fl.Auto {
			if fl.Count < 0 || fl.Count > MaxShards {
				t.Fatalf("%q: %+v", s, fl)
			}
			return
		}
		sh, _, err := fl.Resolve(nil)
		if err != nil {
			t.Fatalf("%q parsed as %+v but does not resolve: %v", s, fl, err)
		}
		// Printing and parsing again gives the same shard.
		again, err := ParseShardFlag(sh.String())
		if err != nil || again != fl || strconv.Itoa(fl.Index)+"/"+strconv.Itoa(fl.Count) != sh.String() {
			t.Fatalf("%q: %+v does not round-trip: %+v, %v", s, fl, again, err)
		}
	})
}
