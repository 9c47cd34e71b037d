"""tools/builtin"""
