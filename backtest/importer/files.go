package importer

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mmbot/mmbot/backtest/recording"
)

// ExpandInputs turns file names and glob patterns (path/filepath.Match
// syntax) into the list of files to read: each pattern's matches sorted by
// name, in the order the inputs are given, each file once. A pattern that
// matches nothing is an error; a plain name is kept (and fails when
// opened, if it does not exist).
func ExpandInputs(inputs []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, in := range inputs {
		names := []string{in}
		if strings.ContainsAny(in, "*?[") {
			m, err := filepath.Glob(in)
			if err != nil {
				return nil, fmt.Errorf("input %q: %w", in, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("input %q: no file matches", in)
			}
			sort.Strings(m)
			names = m
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no input files")
	}
	return out, nil
}

// SourceOf is the header's source of a recording imported from files:
// "import: " and their base names (the first three and a count when there
// are more than five).
func SourceOf(files []string) string {
	names := make([]string, 0, min(len(files), 5))
	for i, f := range files {
		if len(files) > 5 && i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(files)-3))
			break
		}
		names = append(names, filepath.Base(f))
	}
	return "import: " + strings.Join(names, ", ")
}

// ImportFiles imports the files named by inputs (names or glob patterns,
// ExpandInputs) one after another, as one stream (so give them in time
// order: a glob sorts by name), into a recording at out written through a
// recording.Writer: committed only when every input converted, with the
// header's source set to SourceOf(files) unless wopts set another.
func ImportFiles(ctx context.Context, inputs []string, out string, opts Options, wopts ...recording.WriterOption) (Stats, error) {
	files, err := ExpandInputs(inputs)
	if err != nil {
		return Stats{}, fmt.Errorf("import: %w", err)
	}
	var total int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return Stats{}, fmt.Errorf("import: %w", err)
		}
		if fi.IsDir() {
			return Stats{}, fmt.Errorf("import: %s is a directory", f)
		}
		total += fi.Size()
	}
	w, err := recording.NewWriter(out, append([]recording.WriterOption{recording.WithSource(SourceOf(files))}, wopts...)...)
	if err != nil {
		return Stats{}, err
	}
	st, err := importFiles(ctx, files, total, w, opts)
	if err != nil {
		_ = w.Abort()
		return st, err
	}
	if err := w.Close(); err != nil {
		return st, err
	}
	return st, nil
}

func importFiles(ctx context.Context, files []string, total int64, sink recording.EventSink, opts Options) (Stats, error) {
	im, err := newImporter(ctx, sink, opts)
	if err != nil {
		return Stats{}, err
	}
	var done, cur int64
	im.total = total
	im.readBytes = func() int64 { return done + cur }
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return im.stats(), fmt.Errorf("import: %w", err)
		}
		im.st.Files = append(im.st.Files, name)
		cur = 0
		err = im.read(&countingReader{r: f, n: &cur}, name)
		f.Close()
		if err != nil {
			return im.stats(), err
		}
		done += cur
		cur = 0
	}
	if err := im.finish(); err != nil {
		return im.stats(), err
	}
	return im.stats(), nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}
