package recording

import (
	"fmt"
	"path/filepath"
	"strings"
)

// FileFormat is a version of the recording format as files hold it.
type FileFormat int

// The recording formats. The zero FileFormat means "choose by the file's
// name" (FormatForPath).
const (
	// FormatV1 is version 1: gzip-compressed JSON Lines (.jsonl.gz).
	FormatV1 FileFormat = 1
	// FormatV2 is version 2: zstd-compressed blocks of binary events
	// (.mmrec), the default.
	FormatV2 FileFormat = 2
)

// File name extensions of the two formats.
const (
	ExtV1 = ".jsonl.gz"
	ExtV2 = ".mmrec"
)

// String returns "v1" or "v2".
func (f FileFormat) String() string {
	switch f {
	case FormatV1, FormatV2:
		return fmt.Sprintf("v%d", int(f))
	}
	return fmt.Sprintf("FileFormat(%d)", int(f))
}

// ParseFileFormat reads a format's name: "v1" or "1", "v2" or "2"; "" and
// "auto" are the zero FileFormat (by the file's name).
func ParseFileFormat(s string) (FileFormat, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return 0, nil
	case "v1", "1", "jsonl":
		return FormatV1, nil
	case "v2", "2", "mmrec":
		return FormatV2, nil
	}
	return 0, fmt.Errorf("recording format %q: want v1 or v2", s)
}

// FormatForPath is the format a file name asks for: version 1 for a name
// ending in .jsonl.gz, .jsonl or .gz (JSON Lines, gzip-compressed or not;
// the Writer always compresses), version 2 for any other name (.mmrec).
// known reports whether the name has one of those extensions.
func FormatForPath(path string) (f FileFormat, known bool) {
	name := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(name, ExtV2):
		return FormatV2, true
	case strings.HasSuffix(name, ".gz"), strings.HasSuffix(name, ".jsonl"):
		return FormatV1, true
	}
	return FormatV2, false
}

// ResolveFormat returns the format to write path in: want when set, else
// FormatForPath's choice. Asking for one format under the other's
// extension (v2 into rec.jsonl.gz) is an error: the name would mislead
// every tool that trusts it.
func ResolveFormat(path string, want FileFormat) (FileFormat, error) {
	byName, known := FormatForPath(path)
	switch {
	case want == 0:
		return byName, nil
	case want != FormatV1 && want != FormatV2:
		return 0, fmt.Errorf("recording format %d: want v1 or v2", int(want))
	case known && want != byName:
		return 0, fmt.Errorf("%s: a %s recording needs a name ending in %s", path, want, want.ext())
	}
	return want, nil
}

func (f FileFormat) ext() string {
	if f == FormatV1 {
		return ExtV1
	}
	return ExtV2
}
