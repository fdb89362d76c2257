from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.job_out import JobOut
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    cluster_id: str,
    job_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/clusters/{cluster_id}/jobs/{job_id}".format(
            cluster_id=quote(str(cluster_id), safe=""),
            job_id=quote(str(job_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> JobOut | Problem | None:
    if response.status_code == 200:
        response_200 = JobOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[JobOut | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cluster_id: str,
    job_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[JobOut | Problem]:
    """Where a job is: queued (with a forecast of its start), running or finished

    Args:
        cluster_id (str):
        job_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200
            characters: it is a path segment of later requests.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobOut | Problem]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        job_id=job_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    cluster_id: str,
    job_id: str,
    *,
    client: AuthenticatedClient,
) -> JobOut | Problem | None:
    """Where a job is: queued (with a forecast of its start), running or finished

    Args:
        cluster_id (str):
        job_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200
            characters: it is a path segment of later requests.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobOut | Problem
    """

    return sync_detailed(
        cluster_id=cluster_id,
        job_id=job_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    cluster_id: str,
    job_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[JobOut | Problem]:
    """Where a job is: queued (with a forecast of its start), running or finished

    Args:
        cluster_id (str):
        job_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200
            characters: it is a path segment of later requests.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobOut | Problem]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        job_id=job_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    cluster_id: str,
    job_id: str,
    *,
    client: AuthenticatedClient,
) -> JobOut | Problem | None:
    """Where a job is: queued (with a forecast of its start), running or finished

    Args:
        cluster_id (str):
        job_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200
            characters: it is a path segment of later requests.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobOut | Problem
    """

    return (
        await asyncio_detailed(
            cluster_id=cluster_id,
            job_id=job_id,
            client=client,
        )
    ).parsed
