module agent-gateway/bridge

go 1.26
