package hostenv

import (
	"context"
	"log/slog"

	"github.com/airlock-mcp/airlock/abi"
)

// LevelTrace is the slog level of a plugin's trace records: below Debug, as
// slog leaves room for.
const LevelTrace = slog.LevelDebug - 4

func slogLevel(l int32) slog.Level {
	switch l {
	case abi.LogTrace:
		return LevelTrace
	case abi.LogDebug:
		return slog.LevelDebug
	case abi.LogInfo:
		return slog.LevelInfo
	case abi.LogWarn:
		return slog.LevelWarn
	default:
		return slog.LevelError
	}
}

// log writes one plugin record. The message is truncated to MaxLogBytes so
// that a plugin cannot flood the host's log with one call.
func (c *Call) log(level int32, msg []byte) {
	lv := slogLevel(level)
	lg := c.sh.Logger
	if !lg.Enabled(c.ctx, lv) {
		return
	}
	truncated := false
	if len(msg) > c.sh.MaxLogBytes {
		msg, truncated = msg[:c.sh.MaxLogBytes], true
	}
	if truncated {
		lg.Log(c.ctx, lv, string(msg), "plugin", c.sh.Plugin, "truncated", true)
		return
	}
	lg.Log(c.ctx, lv, string(msg), "plugin", c.sh.Plugin)
}

// logLevel is the lowest ABI level the host's logger records, so that a PDK
// can skip formatting records nobody will see.
func (c *Call) logLevel(ctx context.Context) int32 {
	for l := abi.LogTrace; l < abi.LogError; l++ {
		if c.sh.Logger.Enabled(ctx, slogLevel(l)) {
			return l
		}
	}
	return abi.LogError
}
