package loader

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/airlock-mcp/airlock/host/config"
)

// WatchOptions configure [Loader.Watch].
type WatchOptions struct {
	// Load reads the configuration anew (the config file and the flags). It
	// is called for every reload.
	Load func() (*config.File, error)
	// Files are watched besides the plugins, e.g. the config file itself.
	Files []string
	// Trigger, when it receives, reloads as if a file changed (SIGHUP).
	Trigger <-chan struct{}
	// Settle is how long changes must pause before a reload, so that a file
	// written in several steps is read once, whole. Default 200ms.
	Settle time.Duration
	// MaxBackoff caps the wait after repeated failures. Default 30s.
	MaxBackoff time.Duration
	// OnReload, if set, is told the outcome of every reload attempt.
	OnReload func(error)
	// OnWatching, if set, is called once the files are being watched.
	OnWatching func()
}

// Watch reloads when a watched file changes or Trigger fires, until ctx is
// done. It watches the folders of the files (editors and build tools replace
// files rather than write them in place) and follows the plugin list as it
// changes. After a failed reload it waits before trying again, doubling the
// wait each time up to MaxBackoff; changes made meanwhile are folded into
// the next attempt.
func (l *Loader) Watch(ctx context.Context, o WatchOptions) error {
	if o.Settle <= 0 {
		o.Settle = 200 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()

	watched := map[string]bool{} // absolute file paths
	dirs := map[string]bool{}
	follow := func() {
		files := append(append([]string(nil), o.Files...), l.Paths()...)
		watched = map[string]bool{}
		for _, f := range files {
			abs, err := filepath.Abs(f)
			if err != nil {
				continue
			}
			watched[abs] = true
			if d := filepath.Dir(abs); !dirs[d] {
				if err := w.Add(d); err != nil {
					l.opts.Logger.Warn("cannot watch a folder for changes", "dir", d, "err", err)
					continue
				}
				dirs[d] = true
			}
		}
	}
	follow()
	if o.OnWatching != nil {
		o.OnWatching()
	}

	var (
		settle   *time.Timer
		settleC  <-chan time.Time
		notYet   time.Time // no attempt before this (backoff)
		failures int
	)
	arm := func() {
		d := o.Settle
		if wait := time.Until(notYet); wait > d {
			d = wait
		}
		if settle == nil {
			settle = time.NewTimer(d)
		} else {
			settle.Reset(d)
		}
		settleC = settle.C
	}
	defer func() {
		if settle != nil {
			settle.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if watched[ev.Name] && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) != 0 {
				arm()
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			l.opts.Logger.Warn("file watcher", "err", err)
		case <-o.Trigger:
			arm()
		case <-settleC:
			settleC = nil
			err := l.reloadFrom(ctx, o.Load)
			if o.OnReload != nil {
				o.OnReload(err)
			}
			if err != nil {
				failures++
				backoff := min(o.Settle<<failures, o.MaxBackoff)
				notYet = time.Now().Add(backoff)
				l.opts.Logger.Error("reload failed; the last good interceptors keep serving", "err", err,
					"failures", failures, "retry_after", backoff.Round(time.Millisecond))
				continue
			}
			failures, notYet = 0, time.Time{}
			follow()
		}
	}
}

func (l *Loader) reloadFrom(ctx context.Context, load func() (*config.File, error)) error {
	cfg, err := load()
	if err != nil {
		return err
	}
	return l.Reload(ctx, cfg)
}
