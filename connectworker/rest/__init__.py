"""rest"""
