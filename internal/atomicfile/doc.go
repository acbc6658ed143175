// Package atomicfile writes files that appear complete or not at all: the
// content goes to a temporary file in the destination's directory, and
// Commit fsyncs it, sets its permissions, renames it over the destination
// and fsyncs the directory. A reader of the destination sees the old
// content or the whole new one, never a partial file; a process that dies
// before Commit leaves only a temporary file (".<name>.tmp-*") behind and
// the destination as it was. The temporary file is created with mode 0600,
// so content meant to stay private never exists with broader permissions.
//
// Recordings, reports, the simulator's catalog, credentials and state files
// are written through it. MoveAside renames a file out of the way (a
// journal set aside) without overwriting anything.
package atomicfile
