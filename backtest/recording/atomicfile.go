package recording

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// atomicFile is written under a temporary name in the destination's
// directory; Commit fsyncs it and renames it over the destination, so a
// reader of the destination sees the old content or the complete new one and
// never a partial file. A process killed before Commit leaves only the
// temporary file (".<name>.tmp-*") behind.
type atomicFile struct {
	f    *os.File
	path string
	done bool
}

func createAtomic(path string) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create temporary file for %s: %w", path, err)
	}
	return &atomicFile{f: f, path: path}, nil
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// Commit makes the written content visible at the destination.
func (a *atomicFile) Commit() error {
	if a.done {
		return errors.New("atomic file already finished")
	}
	a.done = true
	tmp := a.f.Name()
	err := a.f.Chmod(0o644)
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("commit %s: %w", a.path, err)
	}
	syncDir(filepath.Dir(a.path))
	return nil
}

// Abort removes the temporary file; the destination is untouched. Abort after
// Commit does nothing.
func (a *atomicFile) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	_ = a.f.Close()
	if err := os.Remove(a.f.Name()); err != nil {
		return fmt.Errorf("remove temporary file: %w", err)
	}
	return nil
}

// syncDir makes a rename in dir durable where the platform supports it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// WriteFileAtomic writes path through write: the file appears complete or not
// at all. An error from write aborts and leaves any previous file in place.
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	af, err := createAtomic(path)
	if err != nil {
		return err
	}
	if err := write(af); err != nil {
		_ = af.Abort()
		return err
	}
	return af.Commit()
}
