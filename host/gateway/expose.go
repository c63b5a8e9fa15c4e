package gateway

import "github.com/modelcontextprotocol/go-sdk/mcp"

func (g *Gateway) exposeInterceptors() error { return nil }

func (g *Gateway) advertiseInterceptors(*mcp.ServerCapabilities) {}
