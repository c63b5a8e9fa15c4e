package hostenv

import (
	"context"

	"github.com/tetratelabs/wazero/api"
)

// guestBytes returns a view of len bytes of the guest's memory at ptr,
// failing the call when the range lies outside it.
func (c *Call) guestBytes(mod api.Module, ptr, n uint64, what string) []byte {
	b, ok := mod.Memory().Read(uint32(ptr), uint32(n))
	if !ok {
		c.fail("%s: %d bytes at %d lie outside the plugin's memory", what, uint32(n), uint32(ptr))
	}
	return b
}

// airlockFuncs are the functions of "airlock:host/v1" (abi/README.md 4.5).
// They read and write the guest's own memory: no handles, no copies through
// host memory.
var airlockFuncs = []hostFunc{
	{"log", []api.ValueType{i32, i32, i32}, nil, func(ctx context.Context, mod api.Module, s []uint64) {
		c := callFrom(ctx)
		c.checkDeadline()
		c.log(int32(s[0]), c.guestBytes(mod, s[1], s[2], "log"))
	}},
	{"var_get", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, func(ctx context.Context, mod api.Module, s []uint64) {
		c := callFrom(ctx)
		key := c.guestBytes(mod, s[0], s[1], "var_get key")
		dst := c.guestBytes(mod, s[2], s[3], "var_get value")
		n := int32(-1)
		c.sh.Vars.getInto(key, func(v []byte) {
			copy(dst, v)
			n = int32(len(v))
		})
		s[0] = uint64(uint32(n))
	}},
	{"var_set", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, func(ctx context.Context, mod api.Module, s []uint64) {
		c := callFrom(ctx)
		c.checkDeadline()
		key := c.guestBytes(mod, s[0], s[1], "var_set key")
		val := c.guestBytes(mod, s[2], s[3], "var_set value")
		if c.sh.Vars.Set(string(key), val) {
			s[0] = 0
		} else {
			s[0] = uint64(uint32(0xffffffff))
		}
	}},
	{"var_delete", []api.ValueType{i32, i32}, nil, func(ctx context.Context, mod api.Module, s []uint64) {
		c := callFrom(ctx)
		c.sh.Vars.Delete(string(c.guestBytes(mod, s[0], s[1], "var_delete key")))
	}},
}
