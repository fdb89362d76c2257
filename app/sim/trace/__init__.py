"""Job-level traces (the Alibaba 2018 batch sample): loader, simulation, HTTP replay."""
