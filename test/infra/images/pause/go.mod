module local.invalid/agw-pause

go 1.24
