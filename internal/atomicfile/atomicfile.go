package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrFinished is returned by Write and Commit after Commit or Abort.
var ErrFinished = errors.New("atomicfile: already committed or aborted")

// File is a file being written that Commit places at its destination.
type File struct {
	f    *os.File
	path string
	perm fs.FileMode
	done bool
}

// Create starts a file that Commit will place at path with permissions
// perm (before the umask-free chmod, exactly perm).
func Create(path string, perm fs.FileMode) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create temporary file for %s: %w", path, err)
	}
	return &File{f: f, path: path, perm: perm}, nil
}

// Name is the temporary file's path, for a writer that must open the file
// itself (a database that writes through its own handle); Commit still
// syncs, closes and places it.
func (a *File) Name() string { return a.f.Name() }

// Write writes to the temporary file.
func (a *File) Write(p []byte) (int, error) {
	if a.done {
		return 0, ErrFinished
	}
	return a.f.Write(p)
}

// Commit makes the written content visible at the destination. On failure
// the temporary file is removed and the destination is untouched.
func (a *File) Commit() error {
	if a.done {
		return ErrFinished
	}
	a.done = true
	tmp := a.f.Name()
	err := a.f.Chmod(a.perm)
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

// Abort removes the temporary file; the destination is untouched. Abort
// after Commit or Abort does nothing.
func (a *File) Abort() error {
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

// WriteFile writes path with permissions perm through write: the file
// appears complete or not at all. An error from write aborts and leaves any
// previous file in place.
func WriteFile(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	af, err := Create(path, perm)
	if err != nil {
		return err
	}
	if err := write(af); err != nil {
		_ = af.Abort()
		return err
	}
	return af.Commit()
}

// ErrExists is returned by MoveAside when its destination exists.
var ErrExists = errors.New("destination exists")

// MoveAside renames oldpath to newpath within one directory, never over an
// existing file (ErrExists), and makes the rename durable (the directory is
// fsynced): a journal set aside stays set aside after a crash.
func MoveAside(oldpath, newpath string) error {
	if _, err := os.Lstat(newpath); err == nil {
		return fmt.Errorf("move %s aside: %s: %w", oldpath, newpath, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("move %s aside: %w", oldpath, err)
	}
	if err := os.Rename(oldpath, newpath); err != nil {
		return fmt.Errorf("move %s aside: %w", oldpath, err)
	}
	syncDir(filepath.Dir(newpath))
	return nil
}
